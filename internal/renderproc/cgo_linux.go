//go:build cgo

package renderproc

// cgoThreads: built with cgo, the runtime starts threads with glibc's
// pthread_create, which maps each one's stack as data (threadStackRoom).
const cgoThreads = true
