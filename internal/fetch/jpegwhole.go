package fetch

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// A JPEG is embedded in a PDF as it came, never decoded (internal/render),
// so its header's size is all the renderer learns of it: a JPEG cut short
// after a header claiming 10000×10000 was embedded as it was, and printed
// as grey or not at all. jpegWhole reads its structure without decoding a
// pixel: the segments to each start of scan, each scan's entropy-coded
// data to the next marker, and so on to the end-of-image marker.

// JPEG markers: those without a length of their own.
const (
	markerSOI  = 0xd8
	markerEOI  = 0xd9
	markerSOS  = 0xda
	markerTEM  = 0x01
	markerRST0 = 0xd0
	markerRST7 = 0xd7
)

var (
	errJPEGCut    = errors.New("it is cut short: the file ends before the image does (no end-of-image marker)")
	errJPEGNoScan = errors.New("it holds no image data (no start-of-scan marker before its end)")
)

// jpegWhole reports whether data, which starts with a JPEG's SOI marker,
// holds every segment it announces, at least one scan, and ends its last
// scan with an EOI marker (bytes after EOI are ignored, as decoders do).
func jpegWhole(data []byte) error {
	scans := 0
	for i := 2; ; {
		marker, next, ok := nextMarker(data, i)
		if !ok {
			return errJPEGCut
		}
		switch {
		case marker == markerEOI:
			if scans == 0 {
				return errJPEGNoScan
			}
			return nil
		case marker == markerSOI || marker == markerTEM || marker >= markerRST0 && marker <= markerRST7:
			i = next // no length
			continue
		}
		if next+2 > len(data) {
			return errJPEGCut
		}
		end := next + int(binary.BigEndian.Uint16(data[next:]))
		if end > len(data) || end < next+2 {
			return errJPEGCut
		}
		i = end
		if marker == markerSOS {
			scans++
			if i = entropyEnd(data, i); i < 0 {
				return errJPEGCut
			}
		}
	}
}

// nextMarker reads the marker at i (0xFF, any fill bytes of 0xFF, then the
// marker's code) and returns its code and the index after it.
func nextMarker(data []byte, i int) (byte, int, bool) {
	if i >= len(data) {
		return 0, i, false
	}
	if data[i] != 0xff {
		return 0, i, false
	}
	for i < len(data) && data[i] == 0xff {
		i++
	}
	if i >= len(data) {
		return 0, i, false
	}
	return data[i], i + 1, true
}

// entropyEnd returns the index of the marker that ends the entropy-coded
// data starting at i: the first 0xFF (with any fill 0xFFs after it) that
// is neither a stuffed 0xFF00 nor a restart marker; -1 when the data
// ends first. The 0xFFs are found with IndexByte: this is most of the file.
func entropyEnd(data []byte, i int) int {
	for {
		k := bytes.IndexByte(data[i:], 0xff)
		if k < 0 {
			return -1
		}
		j := i + k
		m := j
		for m < len(data) && data[m] == 0xff {
			m++
		}
		if m >= len(data) {
			return -1
		}
		if c := data[m]; c != 0x00 && (c < markerRST0 || c > markerRST7) {
			return j
		}
		i = m + 1
	}
}
