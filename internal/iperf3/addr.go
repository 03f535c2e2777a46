package iperf3

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ParseServer reads a server as users type it: host, host:port,
// [IPv6]:port, [IPv6] or a bare IPv6 address. Port is 0 when none is
// given.
func ParseServer(s string) (host string, port int, err error) {
	switch {
	case s == "":
		return "", 0, fmt.Errorf("no server given")
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		host = s[1 : len(s)-1]
	case strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1:
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			return "", 0, fmt.Errorf("%q: %v", s, err)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("%q: the port must be a number from 1 to 65535", s)
		}
		host, port = h, n
	default:
		host = s
	}
	if host == "" || strings.ContainsAny(host, "[]/ \t") {
		return "", 0, fmt.Errorf("%q is not a host name or address", s)
	}
	return host, port, nil
}
