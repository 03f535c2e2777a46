package iperf3

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuTimes is this process's processor time at an instant.
type cpuTimes struct {
	wall, user, system time.Duration
	ok                 bool
}

func readCPU() cpuTimes {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return cpuTimes{wall: wallNow()}
	}
	return cpuTimes{
		wall:   wallNow(),
		user:   time.Duration(ru.Utime.Nano()),
		system: time.Duration(ru.Stime.Nano()),
		ok:     true,
	}
}

var processStart = time.Now()

func wallNow() time.Duration { return time.Since(processStart) }

type cpuLoad struct{ total, user, system float64 }

// since is the load between c0 and c as iperf3 reports it: percent of one
// CPU, so the process's threads together may exceed 100.
func (c cpuTimes) since(c0 cpuTimes) cpuLoad {
	wall := (c.wall - c0.wall).Seconds()
	if !c.ok || !c0.ok || wall <= 0 {
		return cpuLoad{}
	}
	u := (c.user - c0.user).Seconds() / wall * 100
	s := (c.system - c0.system).Seconds() / wall * 100
	return cpuLoad{total: u + s, user: u, system: s}
}
