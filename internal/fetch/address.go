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
	reserved    = netip.MustParsePrefix("240.0.0.0/4")   // includes 255.255.255.255
	siteLocal   = netip.MustParsePrefix("fec0::/10")     // deprecated, still routed by some networks
	nat64       = netip.MustParsePrefix("64:ff9b::/96")  // a NAT64 gateway reaches the IPv4 address inside
	sixToFour   = netip.MustParsePrefix("2002::/16")     // 6to4 carries an IPv4 address too
)

// refusal says what kind of address ip is when Platen must not connect to
// it, or "" when it may.
func refusal(ip netip.Addr) string {
	ip = embeddedIPv4(ip.WithZone(""))
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
	case reserved.Contains(ip):
		return "a reserved address"
	}
	return ""
}

// embeddedIPv4 returns the IPv4 address an IPv6 one stands for, if any
// (::ffff:10.0.0.1 reaches 10.0.0.1), else ip itself.
func embeddedIPv4(ip netip.Addr) netip.Addr {
	b := ip.As16()
	switch {
	case ip.Is4In6():
		return ip.Unmap()
	case nat64.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16]))
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6]))
	}
	return ip
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
