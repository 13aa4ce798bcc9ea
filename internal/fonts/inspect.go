package fonts

import (
	"encoding/binary"
	"fmt"
	"image/color"
	"strings"
	"unicode"

	"github.com/tdewolff/canvas"
	sfnt "github.com/tdewolff/font"

	"github.com/platen-print/platen/internal/sfntcheck"
)

// MaxBytes bounds a font file: its base64 in a JSON body must stay under
// the API's 8 MiB body limit.
const MaxBytes = 6_000_000

// The OS/2 fsType bits Platen reads (OpenType specification, OS/2 table).
const (
	fsRestricted     = 0x0002 // restricted licence embedding: not embeddable
	fsPreviewOnly    = 0x0004 // preview and print embedding
	fsEditable       = 0x0008 // editable embedding
	fsNoSubsetting   = 0x0100 // no subsetting
	fsBitmapOnly     = 0x0200 // bitmap embedding only
	maxNameRunes     = 256
	formatTrueType   = "ttf"
	formatOpenType   = "otf"
	embedInstallable = "installable"
)

// Info is what a font file says of itself, read at upload.
type Info struct {
	Family, Style, PostScriptName string
	// Format is "ttf" (TrueType outlines) or "otf" (CFF outlines).
	Format string
	// FsType is the OS/2 fsType, 0 without an OS/2 table; Embedding says
	// it in words: "installable", "editable" or "preview_and_print".
	FsType    uint16
	Embedding string
}

// Inspect reads data as one TTF or OTF font, as the renderer will, and
// checks that its licence lets Platen embed it in print files. Its error
// is the reason to give for the upload's data field.
func Inspect(data []byte) (info *Info, err error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("is required: the TTF or OTF file (base64 over REST)")
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("the font is %d bytes, over the limit of %d", len(data), MaxBytes)
	}
	format, err := signature(data)
	if err != nil {
		return nil, err
	}
	// Before the font library reads it: the library outlines whatever a
	// glyph asks for, and a few kilobytes can ask for gigabytes.
	if err := sfntcheck.Check(data); err != nil {
		return nil, err
	}
	// The font library reads what it is given on trust; a file damaged
	// in a way it does not check for must fail this upload, not the
	// service.
	defer func() {
		if r := recover(); r != nil {
			info, err = nil, fmt.Errorf("the font cannot be read: %v", r)
		}
	}()
	font, err := canvas.LoadFont(data, 0, canvas.FontRegular)
	if err != nil {
		return nil, fmt.Errorf("the font cannot be read: %v", err)
	}
	tryGlyphs(font)
	info = &Info{Format: format, Embedding: embedInstallable}
	s := font.SFNT
	info.Family = name(s, sfnt.NamePreferredFamily, sfnt.NameFontFamily)
	info.Style = name(s, sfnt.NamePreferredSubfamily, sfnt.NameFontSubfamily)
	info.PostScriptName = name(s, sfnt.NamePostScript)
	if s.OS2 != nil {
		info.FsType = s.OS2.FsType
	}
	if err := licence(info); err != nil {
		return nil, err
	}
	return info, nil
}

// signature tells the format from the file's first four bytes.
func signature(data []byte) (string, error) {
	if len(data) < 12 {
		return "", fmt.Errorf("is not a TTF or OTF font: %d bytes is too short for one", len(data))
	}
	switch tag := string(data[:4]); {
	case binary.BigEndian.Uint32(data) == 0x00010000, tag == "true":
		return formatTrueType, nil
	case tag == "OTTO":
		return formatOpenType, nil
	case tag == "ttcf":
		return "", fmt.Errorf("is a font collection (TTC), which holds several fonts: upload each as its own TTF or OTF file")
	case tag == "wOFF", tag == "wOF2":
		return "", fmt.Errorf("is a WOFF web font: upload the TTF or OTF font it was made from")
	}
	return "", fmt.Errorf("is not a TTF or OTF font (it does not start with an OpenType signature)")
}

// tryGlyphs outlines a few common characters as the renderer would (a
// damaged glyph table panics, which Inspect recovers), so that damaged
// outlines fail the upload rather than a print.
func tryGlyphs(font *canvas.Font) {
	font.Face(12, color.Black).ToPath("Aa0 ")
}

// licence refuses a font whose OS/2 fsType forbids what Platen does with
// it: embed its outlines, subset, in PDF print files (PDF/X requires fonts
// embedded); and names the embedding it allows.
func licence(info *Info) error {
	fs := info.FsType
	switch {
	case fs&fsRestricted != 0:
		return fmt.Errorf("the font's licence forbids embedding it in documents (OS/2 fsType 0x0002: restricted license embedding)")
	case fs&fsBitmapOnly != 0:
		return fmt.Errorf("the font's licence allows embedding its bitmaps only, and print files embed outlines (OS/2 fsType 0x0200: bitmap embedding only)")
	case fs&fsNoSubsetting != 0:
		return fmt.Errorf("the font's licence forbids subsetting it, and print files embed only the glyphs they use (OS/2 fsType 0x0100: no subsetting)")
	case fs&fsEditable != 0:
		info.Embedding = "editable"
	case fs&fsPreviewOnly != 0:
		info.Embedding = "preview_and_print"
	}
	return nil
}

// name is the first readable record of the first of ids the name table
// holds, Windows' (Unicode) records before the others.
func name(s *sfnt.SFNT, ids ...sfnt.NameID) string {
	if s.Name == nil {
		return ""
	}
	for _, id := range ids {
		var mac string
		for _, r := range s.Name.Get(id) {
			switch {
			case r.Platform == sfnt.PlatformWindows || r.Platform == sfnt.PlatformUnicode:
				if v := clean(r.String()); v != "" {
					return v
				}
			case r.Platform == sfnt.PlatformMacintosh && r.Encoding == sfnt.EncodingMacintoshRoman && mac == "":
				mac = clean(r.String())
			}
		}
		if mac != "" {
			return mac
		}
	}
	return ""
}

// clean drops control characters (a name table may pad with NULs) and
// bounds the length.
func clean(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			continue
		}
		if n++; n > maxNameRunes {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}
