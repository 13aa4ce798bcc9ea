package fetch

import (
	"net/netip"
	"strings"
)

var (
	// metadataAddrs serve cloud instance credentials: the prize of SSRF.
	metadataAddrs = []netip.Addr{
		netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OCI…
		netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	}
	// metadataNames resolve to a metadata address on the cloud they belong
	// to; refused by name so the answer does not depend on where Platen runs.
	metadataNames = []string{"metadata.google.internal"}

	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")     // Linux connects 0.0.0.0 to the local host
	sharedNAT   = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT, inside providers' networks
	siteLocal   = netip.MustParsePrefix("fec0::/10")     // deprecated, still routed by some networks

	// reserved are the blocks IANA's special-purpose registries mark as
	// not globally reachable and that no rule above covers: nothing a shop
	// serves images from, but some networks use them inside.
	reserved = []netip.Prefix{
		netip.MustParsePrefix("240.0.0.0/4"),     // includes 255.255.255.255
		netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments (DS-Lite, NAT64 discovery)
		netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking, used by some labs and VPNs inside
		netip.MustParsePrefix("192.0.2.0/24"),    // documentation
		netip.MustParsePrefix("198.51.100.0/24"), // documentation
		netip.MustParsePrefix("203.0.113.0/24"),  // documentation
		netip.MustParsePrefix("100::/64"),        // IPv6 discard-only
		netip.MustParsePrefix("2001:db8::/32"),   // IPv6 documentation
	}
)

// refusal says what kind of address ip is when Platen must not connect to
// it, or "" when it may. An IPv6 address that carries an IPv4 one (see
// embeddedIPv4s) is refused when the IPv4 address is, since a translator
// or tunnel on the way would deliver to it.
func refusal(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap() // ::ffff:10.0.0.1 is 10.0.0.1 to the kernel
	if why := plainRefusal(ip); why != "" {
		return why
	}
	for _, e := range embeddedIPv4s(ip) {
		if why := plainRefusal(e.addr); why != "" {
			return e.form + " " + e.addr.String() + ", " + why
		}
	}
	return ""
}

// plainRefusal is the rule for ip as itself, whatever it may carry.
func plainRefusal(ip netip.Addr) string {
	switch {
	case isMetadata(ip):
		return "the cloud metadata address"
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsUnspecified() || thisNetwork.Contains(ip):
		return "an unspecified address"
	case ip.IsPrivate() || siteLocal.Contains(ip):
		return "a private address"
	case ip.IsLinkLocalUnicast():
		return "a link-local address"
	case ip.IsMulticast():
		return "a multicast address"
	case sharedNAT.Contains(ip):
		return "a shared (carrier-grade NAT) address"
	case inAny(reserved, ip):
		return "a reserved address"
	}
	return ""
}

func inAny(prefixes []netip.Prefix, ip netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

func isMetadata(ip netip.Addr) bool {
	for _, m := range metadataAddrs {
		if ip == m {
			return true
		}
	}
	return false
}

func isMetadataName(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, name := range metadataNames {
		if host == name {
			return true
		}
	}
	return false
}
