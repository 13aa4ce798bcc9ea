package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
)

// DialContext connects like net.Dialer.DialContext, but only to addresses
// the Fetcher allows: it resolves addr's host itself, refuses it if any of
// its addresses is refused, and dials the addresses it checked, so that a
// second lookup cannot answer differently (DNS rebinding). Give it to the
// http.Transport of any client that calls URLs from users, with Proxy nil.
func (f *Fetcher) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &failure{kind: ErrBadURL, reason: "is not a valid address: " + err.Error(), cause: err}
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return nil, badPort(portText)
	}
	targets, err := f.resolve(ctx, ipNetwork(network), host, uint16(port))
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, target := range targets {
		conn, err := f.dialer.DialContext(ctx, network, target.String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// CheckURL tells whether raw is an http or https URL whose host resolves
// only to addresses the Fetcher allows; webhook endpoints are checked with
// it when saved. DialContext checks again on every connection, since DNS
// can change in between. With AllowPrivateNetwork only the form is checked.
func (f *Fetcher) CheckURL(ctx context.Context, raw string) error {
	u, err := parseHTTPURL(raw)
	if err == nil && !f.cfg.AllowPrivateNetwork {
		port, _ := portOf(u) // parseHTTPURL checked it
		if _, err = f.resolve(ctx, "ip", u.Hostname(), port); err != nil {
			err = explain(err)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", shown(raw), err)
	}
	return nil
}

// resolve returns the addresses to dial for host, each one checked.
func (f *Fetcher) resolve(ctx context.Context, network, host string, port uint16) ([]netip.AddrPort, error) {
	if isMetadataName(host) && !f.cfg.AllowPrivateNetwork {
		return nil, refused(host + " is the cloud metadata service")
	}
	ips, literal, err := f.lookup(ctx, network, host)
	if err != nil {
		return nil, err
	}
	targets := make([]netip.AddrPort, 0, len(ips))
	for _, ip := range ips {
		target := netip.AddrPortFrom(ip, port)
		if why := f.refusal(target); why != "" {
			if literal {
				return nil, refused(fmt.Sprintf("%s is %s", ip, why))
			}
			return nil, refused(fmt.Sprintf("%s resolves to %s, %s", host, ip, why))
		}
		targets = append(targets, netip.AddrPortFrom(ip.Unmap(), port)) // dial IPv4 as IPv4
	}
	return targets, nil
}

func (f *Fetcher) lookup(ctx context.Context, network, host string) (ips []netip.Addr, literal bool, err error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, true, nil
	}
	ips, err = f.cfg.Resolver.LookupNetIP(ctx, network, host)
	if err == nil && len(ips) == 0 {
		err = &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	for i, ip := range ips {
		ips[i] = ip.Unmap() // the resolver may write 127.0.0.1 as ::ffff:127.0.0.1
	}
	return ips, false, err
}

// refusal is the address rule with the Fetcher's settings applied.
func (f *Fetcher) refusal(target netip.AddrPort) string {
	if f.cfg.AllowPrivateNetwork || f.exempt[target] {
		return ""
	}
	return refusal(target.Addr())
}

// control checks the address the socket is about to connect to, whatever
// path led there: a last guard behind resolve.
func (f *Fetcher) control(_, address string, _ syscall.RawConn) error {
	target, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	if why := f.refusal(target); why != "" {
		return refused(fmt.Sprintf("%s is %s", target.Addr(), why))
	}
	return nil
}

func refused(why string) *failure {
	return &failure{kind: ErrRefused, reason: "refused: " + why + " (start with --allow-private-network to allow it)"}
}

// ipNetwork is the lookup network for a dial network: "tcp4" wants only
// IPv4 addresses.
func ipNetwork(network string) string {
	switch {
	case strings.HasSuffix(network, "4"):
		return "ip4"
	case strings.HasSuffix(network, "6"):
		return "ip6"
	}
	return "ip"
}
