//go:build !cgo

package renderproc

// cgoThreads: built without cgo, the runtime takes thread stacks from its
// own heap (threadStackRoom).
const cgoThreads = false
