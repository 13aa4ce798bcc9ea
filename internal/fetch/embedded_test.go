package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// embeddedForms are IPv6 addresses carrying a refused IPv4 address, with
// the reason each is refused for.
var embeddedForms = []struct{ name, addr, want string }{
	{"IPv4-compatible loopback", "::127.0.0.1", "an IPv4-compatible address for 127.0.0.1, a loopback address"},
	{"IPv4-compatible private", "::10.1.2.3", "an IPv4-compatible address for 10.1.2.3, a private address"},
	{"IPv4-compatible metadata", "::a9fe:a9fe", "an IPv4-compatible address for 169.254.169.254, the cloud metadata address"},
	{"IPv4-compatible link-local", "::169.254.3.4", "an IPv4-compatible address for 169.254.3.4, a link-local address"},
	{"IPv4-compatible CGNAT", "::100.64.0.9", "an IPv4-compatible address for 100.64.0.9, a shared (carrier-grade NAT) address"},
	{"IPv4-compatible this network", "::0.0.0.2", "an IPv4-compatible address for 0.0.0.2, an unspecified address"},
	{"IPv4-translated loopback", "::ffff:0:7f00:1", "an IPv4-translated address for 127.0.0.1, a loopback address"},
	{"IPv4-translated private", "::ffff:0:192.168.1.1", "an IPv4-translated address for 192.168.1.1, a private address"},
	{"IPv4-translated metadata", "::ffff:0:169.254.169.254", "an IPv4-translated address for 169.254.169.254, the cloud metadata address"},
	{"IPv4-translated unspecified", "::ffff:0:0:0", "an IPv4-translated address for 0.0.0.0, an unspecified address"},
	{"NAT64 loopback", "64:ff9b::127.0.0.1", "a NAT64 address for 127.0.0.1, a loopback address"},
	{"NAT64 private", "64:ff9b::a00:1", "a NAT64 address for 10.0.0.1, a private address"},
	{"NAT64 metadata", "64:ff9b::169.254.169.254", "a NAT64 address for 169.254.169.254, the cloud metadata address"},
	{"NAT64 broadcast", "64:ff9b::ffff:ffff", "a NAT64 address for 255.255.255.255, a reserved address"},
	{"local-use NAT64 /96 loopback", "64:ff9b:1::7f00:1", "a local-use NAT64 address for 127.0.0.1, a loopback address"},
	{"local-use NAT64 /96 private, own subnet", "64:ff9b:1:abcd::172.16.0.1", "a local-use NAT64 address for 172.16.0.1, a private address"},
	{"local-use NAT64 /64 layout", "64:ff9b:1:0:a:0:100::", "a local-use NAT64 address for 10.0.0.1, a private address"},
	{"local-use NAT64 /56 layout", "64:ff9b:1:7f:0:1:100::", "a local-use NAT64 address for 127.0.0.1, a loopback address"},
	{"local-use NAT64 /48 layout", "64:ff9b:1:a00:0:100:808:808", "a local-use NAT64 address for 10.0.0.1, a private address"},
	{"6to4 loopback", "2002:7f00:1::1", "a 6to4 address for 127.0.0.1, a loopback address"},
	{"6to4 private", "2002:c0a8:101:1::5", "a 6to4 address for 192.168.1.1, a private address"},
	{"6to4 metadata", "2002:a9fe:a9fe::", "a 6to4 address for 169.254.169.254, the cloud metadata address"},
	{"Teredo client loopback", "2001:0:808:808:0:0:80ff:fffe", "a Teredo address whose client is 127.0.0.1, a loopback address"},
	{"Teredo client private", "2001:0:808:808:8000:1234:f5ff:fffa", "a Teredo address whose client is 10.0.0.5, a private address"},
	{"Teredo server private", "2001:0:a00:1:0:0:f7f7:f7f7", "a Teredo address whose server is 10.0.0.1, a private address"},
	{"Teredo server metadata", "2001:0:a9fe:a9fe::f7f7:f7f7", "a Teredo address whose server is 169.254.169.254, the cloud metadata address"},
	{"ISATAP loopback", "2001:4860::5efe:7f00:1", "an ISATAP address for 127.0.0.1, a loopback address"},
	{"ISATAP loopback, universal bit", "2001:4860::200:5efe:7f00:1", "an ISATAP address for 127.0.0.1, a loopback address"},
	{"ISATAP loopback, group bit", "2001:4860::100:5efe:127.0.0.1", "an ISATAP address for 127.0.0.1, a loopback address"},
	{"ISATAP private", "2600:1f18:1:2:0:5efe:a00:5", "an ISATAP address for 10.0.0.5, a private address"},
	{"ISATAP metadata", "2600::200:5efe:a9fe:a9fe", "an ISATAP address for 169.254.169.254, the cloud metadata address"},
	{"ISATAP CGNAT", "2a00:1450:4001:81c::5efe:6440:1", "an ISATAP address for 100.64.0.1, a shared (carrier-grade NAT) address"},
	{"ISATAP link-local prefix", "fe80::5efe:7f00:1", "a link-local address"},
	{"ISATAP in 6to4 of a public router", "2002:808:808:1:0:5efe:c0a8:101", "an ISATAP address for 192.168.1.1, a private address"},
	{"ISATAP under the compatible prefix", "::5efe:7f00:1", "an ISATAP address for 127.0.0.1, a loopback address"},
	{"IPv4-mapped loopback", "::ffff:127.0.0.1", "a loopback address"},
	{"IPv4-mapped CGNAT", "::ffff:100.100.100.200", "a shared (carrier-grade NAT) address"},
}

// allowedForms carry public IPv4 addresses (or none).
var allowedForms = []string{
	"::8.8.8.8", "::ffff:0:8.8.8.8", "64:ff9b::808:808", "64:ff9b:1::808:808", "64:ff9b:1:abcd::808:808",
	"2002:808:808::1", "2001:0:4136:e378:8000:63bf:f7f7:fbfb", "2606:4700:4700::1111", "::ffff:8.8.8.8",
	"2001:4860::5efe:808:808", "2001:4860::200:5efe:808:808", "2001:4860::400:5efe:7f00:1", "2001:4860::5eff:7f00:1",
}

func TestRefusalRule(t *testing.T) {
	for ip, want := range map[string]string{
		"8.8.8.8":              "",
		"93.184.215.14":        "",
		"2606:4700:4700::1111": "",
		"100.63.255.255":       "",
		"100.128.0.0":          "",
		"172.15.255.255":       "",
		"172.32.0.0":           "",
		"198.17.255.255":       "",
		"198.20.0.0":           "",
		"0.1.2.3":              "an unspecified address",
		"255.255.255.255":      "a reserved address",
		"192.0.0.170":          "a reserved address",
		"198.18.0.1":           "a reserved address",
		"198.19.255.255":       "a reserved address",
		"203.0.113.7":          "a reserved address",
		"2001:db8::1":          "a reserved address",
		"fec0::1":              "a private address",
		"ff02::1":              "a multicast address",
		"fe80::1%eth0":         "a link-local address",
		"::1":                  "a loopback address",
		"::":                   "an unspecified address",
	} {
		if got := refusal(netip.MustParseAddr(ip)); got != want {
			t.Errorf("refusal(%s) = %q, want %q", ip, got, want)
		}
	}
	for _, tc := range embeddedForms {
		if got := refusal(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("%s: refusal(%s) = %q, want %q", tc.name, tc.addr, got, tc.want)
		}
	}
	for _, ip := range allowedForms {
		if got := refusal(netip.MustParseAddr(ip)); got != "" {
			t.Errorf("refusal(%s) = %q, want it allowed", ip, got)
		}
	}
}

// TestEmbeddedIPv4Refused checks every form where it is met: a URL's
// literal host (CheckURL, as webhook URLs are saved, and Fetch), a name
// whose DNS answer is the address (DialContext, as images and webhook
// deliveries connect), and the socket's own last check.
func TestEmbeddedIPv4Refused(t *testing.T) {
	names := map[string][]netip.Addr{}
	for i, tc := range embeddedForms {
		names[fmt.Sprintf("h%d.test", i)] = addrs(tc.addr)
	}
	f := New(Config{Resolver: fakeDNS(t, names), Timeout: 2 * time.Second})
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: f.DialContext}}
	for i, tc := range embeddedForms {
		t.Run(tc.name, func(t *testing.T) {
			ip := netip.MustParseAddr(tc.addr)
			literal := "http://[" + tc.addr + "]:8080/hook"
			refusedAs(t, "CheckURL", f.CheckURL(t.Context(), literal), literal+": refused: "+ip.String()+" is "+tc.want)
			_, err := f.Fetch(t.Context(), literal)
			refusedAs(t, "Fetch", err, "image "+literal+": refused: "+ip.String()+" is "+tc.want)

			name := fmt.Sprintf("h%d.test", i)
			byName := "http://" + name + "/hook"
			why := name + " resolves to " + ip.Unmap().String() + ", " + tc.want
			refusedAs(t, "CheckURL by name", f.CheckURL(t.Context(), byName), byName+": refused: "+why)
			_, err = f.Fetch(t.Context(), byName+".png")
			refusedAs(t, "Fetch by name", err, "image "+byName+".png: refused: "+why)
			_, err = client.Post(byName, "application/json", strings.NewReader("{}")) //nolint:bodyclose // no response
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), why) {
				t.Errorf("webhook delivery: got %v, want %q", err, why)
			}

			socket := netip.AddrPortFrom(ip, 443).String()
			refusedAs(t, "socket", f.control("tcp6", socket, nil), "refused: "+ip.String()+" is "+tc.want)
		})
	}
	t.Run("allowed forms", func(t *testing.T) {
		for _, a := range allowedForms {
			if err := f.CheckURL(t.Context(), "https://["+a+"]/hook"); err != nil {
				t.Errorf("%s: %v", a, err)
			}
			if err := f.control("tcp6", netip.AddrPortFrom(netip.MustParseAddr(a), 443).String(), nil); err != nil {
				t.Errorf("%s at the socket: %v", a, err)
			}
		}
	})
	t.Run("allowed with AllowPrivateNetwork", func(t *testing.T) {
		open := New(Config{AllowPrivateNetwork: true})
		for _, tc := range embeddedForms {
			if err := open.control("tcp6", netip.AddrPortFrom(netip.MustParseAddr(tc.addr), 443).String(), nil); err != nil {
				t.Errorf("%s: %v", tc.addr, err)
			}
		}
	})
}

func refusedAs(t *testing.T, where string, err error, want string) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: allowed, want %q", where, want)
	case !errors.Is(err, ErrRefused) || Temporary(err):
		t.Errorf("%s: got %v (temporary %v), want a permanent refusal", where, err, Temporary(err))
	case err.Error() != want+allowHint:
		t.Errorf("%s:\n got %q\nwant %q", where, err, want+allowHint)
	}
}

// TestInvalidPorts: a port no connection can use is the URL's fault at
// once, never a temporary failure to retry.
func TestInvalidPorts(t *testing.T) {
	f := New(Config{Resolver: fakeDNS(t, map[string][]netip.Addr{"hooks.test": addrs("93.184.215.14")})})
	allow := New(Config{AllowPrivateNetwork: true})
	for raw, want := range map[string]string{
		"https://hooks.test:65536/hook":  "port 65536 is not between 1 and 65535",
		"https://hooks.test:0/hook":      "port 0 is not between 1 and 65535",
		"http://hooks.test:100000/hook":  "port 100000 is not between 1 and 65535",
		"http://[::1]:70000/hook":        "port 70000 is not between 1 and 65535",
		"http://hooks.test:-1/hook":      `invalid port ":-1" after host`,
		"http://hooks.test:8x/hook":      `invalid port ":8x" after host`,
		"http://hooks.test:65535x/hook":  `invalid port ":65535x" after host`,
		"http://127.0.0.1:65536/a.png":   "port 65536 is not between 1 and 65535",
		"http://hooks.test:000080/hook#": "",
	} {
		for _, f := range []*Fetcher{f, allow} {
			err := f.CheckURL(t.Context(), raw)
			if want == "" {
				if err != nil {
					t.Errorf("CheckURL(%s): %v", raw, err)
				}
				continue
			}
			if !errors.Is(err, ErrBadURL) || Temporary(err) || err.Error() != raw+": is not a valid URL: "+want {
				t.Errorf("CheckURL(%s) = %v, want a permanent %q", raw, err, want)
			}
		}
	}
	for _, addr := range []string{"hooks.test:65536", "hooks.test:0", "hooks.test:http", "hooks.test"} {
		if _, err := f.DialContext(t.Context(), "tcp", addr); !errors.Is(err, ErrBadURL) || Temporary(err) {
			t.Errorf("DialContext(%s) = %v, want a permanent bad address", addr, err)
		}
	}
}
