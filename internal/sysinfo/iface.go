package sysinfo

import "net"

// InterfaceOf names the local network interface that holds the address of
// a connection's local end (host:port), as the kernel has it now; "" if
// none does.
func InterfaceOf(localAddr string) string {
	host, _, err := net.SplitHostPort(localAddr)
	ip := net.ParseIP(host)
	if err != nil || ip == nil {
		return ""
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return ""
	}
	for _, ifc := range ifs {
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.Equal(ip) {
				return ifc.Name
			}
		}
	}
	return ""
}
