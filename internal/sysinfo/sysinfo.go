// Package sysinfo reads the facts a result records about the machine a run
// was made on and about each directory it measured: which board, CPU and
// kernel, and which filesystem, mount and block device a path lives on. Two
// runs can only be compared when these are known, and they are only
// trustworthy when read, not assumed: a fact that cannot be read is left
// empty (the result omits it), never guessed.
//
// Everything is read from files under the roots of an FS, so tests can point
// it at fixture trees instead of the running machine's /proc, /sys and /etc.
package sysinfo

// FS is where the facts are read from.
type FS struct {
	// Proc, Sys and Etc stand in for /proc, /sys and /etc.
	Proc, Sys, Etc string
	// Root stands for /, where /bin/sh tells the userland's architecture;
	// empty leaves it unread.
	Root string
	// Live says the roots are the running machine's own, so facts that are
	// not files under them may be asked of the running kernel: the machine
	// name from uname(2), the device number of a node under /dev, and the
	// symlinks in a target path. A fixture leaves it false, and those
	// facts stay empty rather than describe the machine running the test.
	Live bool
	// facts answers what a live machine is asked; nil asks the running
	// kernel.
	facts *liveFacts
}

// Default reads the running machine.
func Default() FS {
	return FS{Root: "/", Proc: "/proc", Sys: "/sys", Etc: "/etc", Live: true}
}
