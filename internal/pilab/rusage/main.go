// Command rusage runs a command and writes what it cost to a file, for
// internal/pilab's bench in the emulated Pi, whose busybox has no time
// applet: "USER SYS HWM", the CPU seconds in user and kernel mode from
// the kernel's rusage of the reaped process (all its threads), and its
// peak resident set in KiB. The peak is the process's own VmHWM, read
// from /proc every 20 ms while it runs (the high-water mark only grows,
// so the last read is within 20 ms of the end): the rusage's ru_maxrss
// would carry this program's own, which the child shares until its exec.
//
//	rusage FILE COMMAND [ARG...]
//
// It exits with the command's status.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: rusage FILE COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "rusage: %v\n", err)
		os.Exit(2)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var hwm int64
	tick := time.NewTicker(20 * time.Millisecond)
	var err error
wait:
	for {
		hwm = max(hwm, vmHWM(cmd.Process.Pid))
		select {
		case err = <-done:
			break wait
		case <-tick.C:
		}
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	user := time.Duration(ru.Utime.Nano()).Seconds()
	sys := time.Duration(ru.Stime.Nano()).Seconds()
	if werr := os.WriteFile(os.Args[1], fmt.Appendf(nil, "%.6f %.6f %d\n", user, sys, hwm), 0o644); werr != nil {
		fmt.Fprintf(os.Stderr, "rusage: %v\n", werr)
		os.Exit(2)
	}
	if err != nil {
		os.Exit(cmd.ProcessState.ExitCode())
	}
}

// vmHWM is the VmHWM line of /proc/PID/status in KiB; 0 once the process
// is gone.
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
