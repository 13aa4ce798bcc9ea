package canvaspdf

// PDF/X-4 (ISO 15930-7, on PDF 1.6), Platen's addition: every file names
// the press condition it is made for (an output intent with an embedded
// ICC profile), says it is PDF/X-4 in its Info dictionary and in XMP
// metadata, has a document ID, dates, a title and Trapped, and paints RGB
// only in an ICC-based sRGB space, never DeviceRGB, which the output
// intent would not cover. The profiles are deflated once per process (per
// OutputIntent) and copied into each file as they are, so conformance
// costs a file about 100 KB more to allocate, copy and collect, not a
// compression.

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"image/color"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/tdewolff/canvas"

	"github.com/platen-print/platen/internal/iccprofile"
)

// pdfxVersion is what Info's GTS_PDFXVersion and XMP's
// pdfxid:GTS_PDFXVersion say.
const pdfxVersion = "PDF/X-4"

// defaultTitle is the Title of a file whose writer set none: PDF/X
// requires one.
const defaultTitle = "Untitled"

// srgbName is the name the sRGB space has in each page's ColorSpace
// resources, what "cs"/"CS" select.
const srgbName = pdfName("CS0")

// OutputCondition is a press condition as a caller describes it: the ICC
// profile of the press and paper (CMYK, an output-device profile) and how
// a PDF/X output intent names it.
type OutputCondition struct {
	Profile []byte
	// Identifier is the OutputConditionIdentifier: a registered
	// condition's name (FOGRA39), or the caller's own.
	Identifier string
	// Condition says in words what the condition is (OutputCondition).
	Condition string
	// RegistryName is the registry Identifier is listed in
	// (http://www.color.org); empty for a condition of one's own.
	RegistryName string
	// Info is the Info entry, shown by preflight tools; Identifier when
	// empty.
	Info string
}

// OutputIntent is an output condition prepared for writing: its profile
// checked and deflated once. Make one with NewOutputIntent and pass it in
// Options to every file made for that condition.
type OutputIntent struct {
	cond     OutputCondition
	deflated []byte
}

// NewOutputIntent checks c's profile (an ICC output profile whose colour
// space is CMYK: what the writer's DeviceCMYK and DeviceGray images rely
// on) and prepares it for embedding.
func NewOutputIntent(c OutputCondition) (*OutputIntent, error) {
	if c.Identifier == "" {
		return nil, errors.New("canvaspdf: an output condition needs an identifier")
	}
	if err := CheckOutputProfile(c.Profile); err != nil {
		return nil, fmt.Errorf("canvaspdf: output condition %s: %w", c.Identifier, err)
	}
	if c.Info == "" {
		c.Info = c.Identifier
	}
	return &OutputIntent{cond: c, deflated: deflate(c.Profile)}, nil
}

// Condition returns what the intent was made from; its Profile is shared,
// not to be changed.
func (o *OutputIntent) Condition() OutputCondition { return o.cond }

// DefaultOutputIntent is FOGRA39, offset on coated paper, with the profile
// internal/iccprofile ships: the intent of a file whose Options name none.
var DefaultOutputIntent = sync.OnceValue(func() *OutputIntent {
	o, err := NewOutputIntent(OutputCondition{
		Profile:      iccprofile.FOGRA39,
		Identifier:   iccprofile.FOGRA39Identifier,
		Condition:    iccprofile.FOGRA39Condition,
		RegistryName: iccprofile.Registry,
		Info:         iccprofile.FOGRA39Info,
	})
	if err != nil {
		panic(err) // the embedded profile is checked by iccprofile's tests
	}
	return o
})

// SizeHint is a size to grow a bytes.Buffer to before writing a file with
// opts (nil for the defaults) into it: the profiles every file holds, and
// 64 KB for a page's content, fonts and a photo. Without it the buffer
// grows, copies and clears its way past the profiles: a fifth of the
// reference page's CPU profile.
func SizeHint(opts *Options) int {
	return len(intentOf(opts).deflated) + len(srgbProfile()) + 64<<10
}

// intentOf is the output intent a file written with opts has.
func intentOf(opts *Options) *OutputIntent {
	if opts != nil && opts.OutputIntent != nil {
		return opts.OutputIntent
	}
	return DefaultOutputIntent()
}

// srgbProfile is iccprofile.SRGB deflated, once.
var srgbProfile = sync.OnceValue(func() []byte { return deflate(iccprofile.SRGB) })

// CheckOutputProfile reports what makes profile unfit to be an output
// intent's, as NewOutputIntent checks it: it must be an ICC output-device
// ("prtr") profile whose colour space is CMYK, read whole: a valid header
// in front of anything else would be embedded as a broken output intent.
func CheckOutputProfile(profile []byte) error {
	if err := checkICC(profile, "prtr", "CMYK"); err != nil {
		return err
	}
	return checkICCWhole(profile)
}

// checkICC reports whether profile has an ICC header of the given device
// class and colour space.
func checkICC(profile []byte, class, space string) error {
	if len(profile) < 128 || string(profile[36:40]) != "acsp" {
		return errors.New("not an ICC profile")
	}
	if int(binary.BigEndian.Uint32(profile)) != len(profile) {
		return errors.New("the ICC profile is truncated")
	}
	if got := string(profile[12:16]); got != class {
		return fmt.Errorf("the ICC profile's class is %q, want %q", got, class)
	}
	if got := string(profile[16:20]); got != space {
		return fmt.Errorf("the ICC profile's colour space is %q, want %q", got, space)
	}
	return nil
}

// deflate compresses b with zlib, as a FlateDecode stream holds it: at
// the best level, since it happens once per process.
func deflate(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// pdfxDoc is the writer's PDF/X state.
type pdfxDoc struct {
	intent  *OutputIntent
	profile pdfRef // the output intent's ICC stream
	srgb    pdfRef // the sRGB ICC stream, 0 until written
}

// pdfHex is a PDF hexadecimal string, <…>: the trailer's ID.
type pdfHex []byte

// startPDFX writes the output intent's profile, and the sRGB one every
// page's group uses, straight after the header: first, so that they land
// in the room SizeHint made rather than make a buffer grow at the end.
func (w *pdfWriter) startPDFX(o *OutputIntent) {
	w.pdfx.intent = o
	w.pdfx.profile = w.writeEncodedStream(pdfDict{"N": 4, "Filter": pdfFilterFlate}, o.deflated)
	w.srgbSpace()
}

// writeEncodedStream writes a stream whose data is already encoded by
// dict's filters (a cached deflated profile): unlike a pdfStream, it is not
// compressed again.
func (w *pdfWriter) writeEncodedStream(dict pdfDict, data []byte) pdfRef {
	dict["Length"] = len(data)
	w.objOffsets = append(w.objOffsets, w.pos)
	ref := pdfRef(len(w.objOffsets))
	w.write("%v 0 obj\n", ref)
	w.writeVal(dict)
	w.write("stream\n")
	w.writeBytes(data)
	w.write("\nendstream\nendobj\n")
	return ref
}

// srgbSpace returns the document's ICC-based sRGB colour space: one
// profile stream per file (startPDFX writes it), whatever uses it.
func (w *pdfWriter) srgbSpace() pdfArray {
	if w.pdfx.srgb == 0 {
		w.pdfx.srgb = w.writeEncodedStream(pdfDict{"N": 3, "Filter": pdfFilterFlate}, srgbProfile())
	}
	return pdfArray{pdfName("ICCBased"), w.pdfx.srgb}
}

// outputIntents is the catalog's OutputIntents array.
func (w *pdfWriter) outputIntents() pdfArray {
	o := w.pdfx.intent
	intent := pdfDict{
		"Type":                      pdfName("OutputIntent"),
		"S":                         pdfName("GTS_PDFX"),
		"OutputConditionIdentifier": o.cond.Identifier,
		"Info":                      o.cond.Info,
		"DestOutputProfile":         w.pdfx.profile,
	}
	if o.cond.Condition != "" {
		intent["OutputCondition"] = o.cond.Condition
	}
	if o.cond.RegistryName != "" {
		intent["RegistryName"] = o.cond.RegistryName
	}
	return pdfArray{intent}
}

// addPDFX completes the catalog, the Info dictionary and the trailer for
// PDF/X-4 just before they are written: the output intent, the XMP
// metadata, dates, Trapped and the document ID.
func (w *pdfWriter) addPDFX(catalog, info, trailer pdfDict) {
	now := time.Now().UTC().Truncate(time.Second)
	if w.title == "" {
		info["Title"] = defaultTitle
	}
	info["CreationDate"] = pdfDate(now)
	info["ModDate"] = pdfDate(now)
	info["Trapped"] = pdfName("False")
	info["GTS_PDFXVersion"] = pdfxVersion

	doc, instance := uuid.New(), uuid.New()
	catalog["OutputIntents"] = w.outputIntents()
	catalog["Metadata"] = w.writeObject(pdfStream{
		dict:   pdfDict{"Type": pdfName("Metadata"), "Subtype": pdfName("XML")},
		stream: w.xmp(now, doc, instance),
	})
	// A new file's two IDs are the same.
	trailer["ID"] = pdfArray{pdfHex(doc[:]), pdfHex(doc[:])}
}

// pdfDate is t as a PDF date string; addPDFX gives it in UTC.
func pdfDate(t time.Time) string {
	return t.Format("D:20060102150405-07'00'")
}

// xmp is the document's XMP metadata packet, which mirrors Info (title,
// dates, producer, Trapped, PDF/X version) as PDF/X requires. It is built
// by appending, without fmt: it is written for every file.
func (w *pdfWriter) xmp(now time.Time, doc, instance uuid.UUID) []byte {
	title := w.title
	if title == "" {
		title = defaultTitle
	}
	date := now.AppendFormat(make([]byte, 0, 32), "2006-01-02T15:04:05-07:00")
	b := make([]byte, 0, 2048)
	b = append(b, xmpHead...)
	el := func(name string, value ...string) {
		b = append(append(append(b, '<'), name...), '>')
		for _, v := range value {
			b = append(b, v...)
		}
		b = append(append(append(b, "</"...), name...), ">\n"...)
	}
	el("dc:format", "application/pdf")
	el("dc:title", `<rdf:Alt><rdf:li xml:lang="x-default">`, xmlEscape(title), "</rdf:li></rdf:Alt>")
	if w.author != "" {
		el("dc:creator", "<rdf:Seq><rdf:li>", xmlEscape(w.author), "</rdf:li></rdf:Seq>")
	}
	if w.subject != "" {
		el("dc:description", `<rdf:Alt><rdf:li xml:lang="x-default">`, xmlEscape(w.subject), "</rdf:li></rdf:Alt>")
	}
	el("xmp:CreateDate", string(date))
	el("xmp:ModifyDate", string(date))
	el("xmp:MetadataDate", string(date))
	if w.creator != "" {
		el("xmp:CreatorTool", xmlEscape(w.creator))
	}
	el("pdf:Producer", producer)
	if w.keywords != "" {
		el("pdf:Keywords", xmlEscape(w.keywords))
	}
	el("pdf:Trapped", "False")
	el("xmpMM:DocumentID", doc.URN())
	el("xmpMM:InstanceID", instance.URN())
	el("xmpMM:VersionID", "1")
	el("xmpMM:RenditionClass", "default")
	el("pdfxid:GTS_PDFXVersion", pdfxVersion)
	return append(b, "</rdf:Description>\n</rdf:RDF>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>"...)
}

// xmpHead opens the packet and its one description, with the namespaces
// it uses.
const xmpHead = "<?xpacket begin=\"\ufeff\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n" +
	`<x:xmpmeta xmlns:x="adobe:ns:meta/">` + "\n" +
	`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` + "\n" +
	`<rdf:Description rdf:about=""` +
	` xmlns:dc="http://purl.org/dc/elements/1.1/"` +
	` xmlns:xmp="http://ns.adobe.com/xap/1.0/"` +
	` xmlns:pdf="http://ns.adobe.com/pdf/1.3/"` +
	` xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"` +
	` xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/">` + "\n"

// producer is Info's Producer and XMP's pdf:Producer, which must agree.
const producer = "tdewolff/canvas"

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func xmlEscape(s string) string { return xmlEscaper.Replace(s) }

// unsetPaint is a page's fill and stroke before any is set: a colour no
// caller can ask for (premultiplied, yet red above alpha), so that the
// first one is always written. Upstream started from black, the PDF
// default, and so left black to paint in the initial DeviceGray space
// rather than in sRGB like every other colour.
var unsetPaint = canvas.Paint{Color: color.RGBA{R: 255}}

// setFillRGB sets the fill colour c (premultiplied, alpha a in 0–1) in
// the sRGB space, selecting the space first when the fill is in another.
func (w *pdfPageWriter) setFillRGB(c color.RGBA, a float64) {
	if w.fillSpace != srgbName {
		fmt.Fprintf(w, " /%v cs", w.useSRGB())
		w.fillSpace = srgbName
	}
	r, g, b := straight(c, a)
	fmt.Fprintf(w, " %v %v %v sc", dec(r), dec(g), dec(b))
	w.setOverprint(false)
}

// setStrokeRGB is setFillRGB for the stroke.
func (w *pdfPageWriter) setStrokeRGB(c color.RGBA, a float64) {
	if w.strokeSpace != srgbName {
		fmt.Fprintf(w, " /%v CS", w.useSRGB())
		w.strokeSpace = srgbName
	}
	r, g, b := straight(c, a)
	fmt.Fprintf(w, " %v %v %v SC", dec(r), dec(g), dec(b))
	w.setOverprint(false)
}

// useSRGB adds the sRGB space to the page's ColorSpace resources and
// returns its name there.
func (w *pdfPageWriter) useSRGB() pdfName {
	spaces := w.colorSpaces()
	if _, ok := spaces[srgbName]; !ok {
		spaces[srgbName] = w.pdf.srgbSpace()
	}
	return srgbName
}

// straight undoes c's premultiplication: components from 0 to 1. A fully
// transparent colour is black, as upstream wrote it.
func straight(c color.RGBA, a float64) (r, g, b float64) {
	if c.A == 0 {
		return 0, 0, 0
	}
	return float64(c.R) / 255 / a, float64(c.G) / 255 / a, float64(c.B) / 255 / a
}

// pdfxEmbedsEveryFont turns off upstream's use of the 14 standard fonts,
// which are not embedded.
const pdfxEmbedsEveryFont = true
