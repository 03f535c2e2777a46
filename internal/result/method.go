package result

import "strings"

// Method names a measurement method as Document.Method spells it; the
// constants are the only spelling code uses.
type Method string

// The methods, each with the section of Document it fills.
const (
	// MethodSweep is the dd loop over block sizes (Sweep).
	MethodSweep Method = "disk.sweep"
	// MethodRandom is sysbench fileio's random file I/O (Random).
	MethodRandom Method = "disk.random"
	// MethodIO is fio's queue-depth job (IO).
	MethodIO Method = "disk.io"
	// MethodMark is the four desktop presets (Mark).
	MethodMark Method = "disk.mark"
	// MethodCheck is a card judged against its classes, or Raspberry
	// Pi's SD Card Speed Test (Check).
	MethodCheck Method = "disk.check"
	// MethodCapacity is disk check --capacity: the free space filled
	// with f3's .h2w files and read back (Capacity).
	MethodCapacity Method = "disk.capacity"
	// MethodNetClient and MethodNetServer are the iperf3 test from each
	// end (Net).
	MethodNetClient Method = "net.client"
	MethodNetServer Method = "net.server"
	// MethodHTTP is the download (HTTP).
	MethodHTTP Method = "net.http"
)

// Command is the method as its command is typed, "disk sweep", which is
// how headings and titles name it; disk.capacity is a mode of disk check.
func (m Method) Command() string {
	if m == MethodCapacity {
		return "disk check --capacity"
	}
	return strings.ReplaceAll(string(m), ".", " ")
}
