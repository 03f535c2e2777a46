package result

// Probe is what disk check --probe found on a whole block device: where
// the memory that really keeps data ends, read from stamped blocks written
// and read back at chosen offsets. It is printed (a table, or this as JSON)
// and not kept in the history.
type Probe struct {
	// Device is the block device probed, as named ("/dev/sdb").
	Device string `json:"device"`
	// Verdict is "genuine" (every block keeps its data), "fake" (less
	// memory than announced: Usable of Announced) or "damaged" (blocks
	// that lose data or fail to read or write below the end of the
	// memory, or at its start).
	Verdict string `json:"verdict"`
	// Kind says how a fake loses data past Usable: "wraparound" (the card
	// ignores high address bits, so a write there lands on a block near
	// the start) or "dropped" (writes there are lost: reads give zeros or
	// old data). Empty for a genuine device.
	Kind string `json:"kind,omitempty"`
	// Announced is the size the device reports, Usable how many bytes
	// from its start keep data (0 when even the first probed block does
	// not), both in bytes and exact to BlockSize.
	Announced int64 `json:"announced_bytes"`
	Usable    int64 `json:"usable_bytes"`
	// Wrap is the distance in bytes at which addresses alias on a
	// wraparound fake (offset o and o+Wrap hold the same byte): the power
	// of two the card's address decoding ignores. 0 when none was found.
	Wrap int64 `json:"wrap_bytes,omitempty"`
	// FirstBad is the byte offset of the first block found losing data
	// below the end of the memory, for a damaged device; -1 otherwise.
	FirstBad int64 `json:"first_bad_offset"`
	// BadBlocks counts the probed blocks that lost data below the end of
	// the memory (a damaged device); 0 otherwise.
	BadBlocks int `json:"bad_blocks"`
	// BlockSize is the probe's unit, the device's logical block size in
	// bytes: every stamp is a block, and Usable is exact to it.
	BlockSize int `json:"block_size"`
	// CacheFlush is how many bytes the probe wrote after each pass's
	// stamps and before reading them back, so that a card's write cache
	// up to that size holds none of them (--cache).
	CacheFlush int64 `json:"cache_flush_bytes"`
	// Passes counts the rounds of writing stamps and reading them back;
	// Written and Read are the bytes the probe wrote and read on the
	// device (the backup's reads and the restore's writes included).
	Passes  int   `json:"passes"`
	Written int64 `json:"written_bytes"`
	Read    int64 `json:"read_bytes"`
	// ElapsedNs is the probe's time from opening the device to closing it,
	// restore included.
	ElapsedNs int64 `json:"elapsed_ns"`
	// Restored says every block the probe overwrote was written back as it
	// was; false with --destructive, which keeps no backup.
	Restored bool `json:"restored"`
	// Fix is the command that makes one partition of the usable size
	// (printed, never run): for a fake or a damaged device with usable
	// memory; empty otherwise.
	Fix string `json:"fix_command,omitempty"`
	// Summary words the verdict in a line.
	Summary string `json:"summary"`
}

// The verdicts and kinds of Probe.
const (
	ProbeGenuine    = "genuine"
	ProbeFake       = "fake"
	ProbeDamaged    = "damaged"
	ProbeWraparound = "wraparound"
	ProbeDropped    = "dropped"
)
