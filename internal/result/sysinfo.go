package result

// Sysinfo is what `thruput sysinfo --json` prints: the machine, the
// targets and the chain of links behind each argument. Its four keys are
// always present, so scripts can index them without checking.
type Sysinfo struct {
	Host    Host     `json:"host"`
	System  System   `json:"system"`
	Targets []Target `json:"targets"`
	// Chains are the links behind each PATH, DEVICE or INTERFACE given.
	Chains []Chain `json:"chains"`
}

// Chain is the chain of links behind one argument.
type Chain struct {
	// Of is the argument as given; Kind says what it named: path,
	// device or interface.
	Of   string `json:"of"`
	Kind string `json:"kind"`
	// Hops go from the device up to the root of its bus.
	Hops []Hop `json:"hops"`
	// Limit is the index of the lowest known ceiling, -1 when none is.
	Limit      int      `json:"limit"`
	SharedWith []string `json:"shared_with,omitempty"`
}
