package fetch

import "net/netip"

// IPv6 blocks whose addresses carry an IPv4 address that a translator,
// relay or tunnel on the way delivers to. IPv4-mapped addresses
// (::ffff:a.b.c.d) are not here: refusal unmaps them first, as the kernel
// connects them to the IPv4 address itself.
var (
	compatible = netip.MustParsePrefix("::/96")           // IPv4-compatible ::a.b.c.d (deprecated, still parsed)
	translated = netip.MustParsePrefix("::ffff:0:0:0/96") // IPv4-translated ::ffff:0:a.b.c.d (SIIT); not ::ffff:0:0, the mapped block
	nat64      = netip.MustParsePrefix("64:ff9b::/96")    // NAT64's well-known prefix
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")  // NAT64's local-use prefix, of any RFC 6052 layout
	sixToFour  = netip.MustParsePrefix("2002::/16")       // 6to4: the site router's IPv4 address in bits 16–48
	teredo     = netip.MustParsePrefix("2001::/32")       // Teredo: server and client IPv4 addresses
)

// embedded is an IPv4 address an IPv6 one carries, and the words that
// lead to it in a refusal ("a NAT64 address for").
type embedded struct {
	form string
	addr netip.Addr
}

// embeddedIPv4s returns the IPv4 addresses ip carries, by every reading
// that may apply: a Teredo address carries two, and one of the local-use
// NAT64 prefix up to four, since its operator picks where the IPv4 bits sit.
// An ISATAP interface identifier can follow any prefix, so it is read
// beside the prefix's own reading.
func embeddedIPv4s(ip netip.Addr) []embedded {
	if !ip.Is6() {
		return nil
	}
	out := byPrefix(ip)
	if e, ok := isatap(ip.As16()); ok {
		out = append(out, e)
	}
	return out
}

// isatap reads an ISATAP interface identifier (RFC 5214): 0000:5efe or,
// with the universal/local bit set, 0200:5efe, then the IPv4 address of
// the tunnel's end in the last 32 bits; the group bit is accepted too, as
// a router on the way does not look at it before it tunnels.
func isatap(b [16]byte) (embedded, bool) {
	if b[8]&^0x03 != 0 || b[9] != 0 || b[10] != 0x5e || b[11] != 0xfe {
		return embedded{}, false
	}
	return embedded{"an ISATAP address for", v4(b[12], b[13], b[14], b[15])}, true
}

// byPrefix reads the IPv4 addresses of the translation and tunnel blocks.
func byPrefix(ip netip.Addr) []embedded {
	b := ip.As16()
	switch {
	case compatible.Contains(ip):
		return []embedded{{"an IPv4-compatible address for", v4(b[12], b[13], b[14], b[15])}}
	case translated.Contains(ip):
		return []embedded{{"an IPv4-translated address for", v4(b[12], b[13], b[14], b[15])}}
	case nat64.Contains(ip):
		return []embedded{{"a NAT64 address for", v4(b[12], b[13], b[14], b[15])}}
	case nat64Local.Contains(ip):
		return localNAT64(b)
	case sixToFour.Contains(ip):
		return []embedded{{"a 6to4 address for", v4(b[2], b[3], b[4], b[5])}}
	case teredo.Contains(ip):
		return []embedded{
			{"a Teredo address whose server is", v4(b[4], b[5], b[6], b[7])},
			{"a Teredo address whose client is", v4(^b[12], ^b[13], ^b[14], ^b[15])},
		}
	}
	return nil
}

// localNAT64 reads an address of 64:ff9b:1::/48 by each layout of RFC 6052
// a prefix of that block can use (/96, /64, /56, /48; bits 64–71 are left
// out of the shorter ones). Readings in 0.0.0.0/8 are dropped: an address
// of a /96 prefix reads so by a shorter layout, and no translator sends
// packets there, so refusing them would refuse every /96 address.
func localNAT64(b [16]byte) []embedded {
	const form = "a local-use NAT64 address for"
	var out []embedded
	for i, a := range []netip.Addr{
		v4(b[12], b[13], b[14], b[15]), // /96
		v4(b[9], b[10], b[11], b[12]),  // /64
		v4(b[7], b[9], b[10], b[11]),   // /56
		v4(b[6], b[7], b[9], b[10]),    // /48
	} {
		if i == 0 || !thisNetwork.Contains(a) {
			out = append(out, embedded{form, a})
		}
	}
	return out
}

func v4(a, b, c, d byte) netip.Addr { return netip.AddrFrom4([4]byte{a, b, c, d}) }
