package netcode

import (
	"errors"
	"net/netip"
)

// ErrAddress reports an address of unknown type or cut short.
var ErrAddress = errors.New("netcode: malformed server address")

// Address types of the token formats.
const (
	addressIPv4 = 1
	addressIPv6 = 2
)

// appendAddress writes one server address of a token:
//
//	IPv4: | type=1 | a | b | c | d | port, uint16 LE |            7 bytes
//	IPv6: | type=2 | a..h, eight uint16 LE | port, uint16 LE |    19 bytes
//
// IPv4-mapped IPv6 addresses are written as IPv4 and zones are dropped, so
// the bytes match what the reference writes for the same endpoint.
func appendAddress(dst []byte, a netip.AddrPort) []byte {
	ip := a.Addr().Unmap()
	if ip.Is4() {
		b := ip.As4()
		dst = append(dst, addressIPv4, b[0], b[1], b[2], b[3])
	} else {
		b := ip.As16()
		dst = append(dst, addressIPv6)
		for i := 0; i < 16; i += 2 {
			// Each group is a uint16 in little endian: swap the network-order pair.
			dst = append(dst, b[i+1], b[i])
		}
	}
	return le.AppendUint16(dst, a.Port())
}

// parseAddress reads one address written by appendAddress and returns it
// with the number of bytes it took.
func parseAddress(b []byte) (netip.AddrPort, int, error) {
	if len(b) < 1 {
		return netip.AddrPort{}, 0, ErrAddress
	}
	switch b[0] {
	case addressIPv4:
		if len(b) < 7 {
			return netip.AddrPort{}, 0, ErrAddress
		}
		ip := netip.AddrFrom4([4]byte{b[1], b[2], b[3], b[4]})
		return netip.AddrPortFrom(ip, le.Uint16(b[5:])), 7, nil
	case addressIPv6:
		if len(b) < 19 {
			return netip.AddrPort{}, 0, ErrAddress
		}
		var a [16]byte
		for i := 0; i < 16; i += 2 {
			a[i], a[i+1] = b[1+i+1], b[1+i]
		}
		return netip.AddrPortFrom(netip.AddrFrom16(a), le.Uint16(b[17:])), 19, nil
	}
	return netip.AddrPort{}, 0, ErrAddress
}

// sameEndpoint compares two addresses as the wire sees them: an IPv4-mapped
// IPv6 address equals its IPv4 form, zones are ignored.
func sameEndpoint(a, b netip.AddrPort) bool {
	return a.Port() == b.Port() && a.Addr().Unmap().WithZone("") == b.Addr().Unmap().WithZone("")
}

// canonical returns the form of a used as a map key: unmapped, without zone.
func canonical(a netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(a.Addr().Unmap().WithZone(""), a.Port())
}

// appendAddressList writes a count (uint32) followed by the addresses.
func appendAddressList(dst []byte, list []netip.AddrPort) []byte {
	dst = le.AppendUint32(dst, uint32(len(list)))
	for _, a := range list {
		dst = appendAddress(dst, a)
	}
	return dst
}

// parseAddressList reads a list written by appendAddressList; the count
// must be in [1, MaxServers] and is checked before anything is allocated.
func parseAddressList(b []byte) ([]netip.AddrPort, int, error) {
	if len(b) < 4 {
		return nil, 0, ErrAddress
	}
	n := le.Uint32(b)
	if n < 1 || n > MaxServers {
		return nil, 0, ErrServerCount
	}
	list := make([]netip.AddrPort, 0, n)
	off := 4
	for range n {
		a, m, err := parseAddress(b[off:])
		if err != nil {
			return nil, 0, err
		}
		list = append(list, a)
		off += m
	}
	return list, off, nil
}
