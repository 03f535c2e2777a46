package uring

// The kernel's io_uring ABI (include/uapi/linux/io_uring.h), spelled out here
// because golang.org/x/sys has the system-call numbers but none of the
// structures or constants. Every field is sized and placed so that Go lays it
// out exactly as the C compiler does on each supported architecture, 32-bit
// ARM included (where Go aligns uint64 to 4 bytes: every uint64 below sits at
// a multiple of 8 anyway); abi_test.go holds the offsets to the header's.

// params is struct io_uring_params: what io_uring_setup reads and fills in.
type params struct {
	sqEntries    uint32
	cqEntries    uint32
	flags        uint32
	sqThreadCPU  uint32
	sqThreadIdle uint32
	features     uint32
	wqFD         uint32
	resv         [3]uint32
	sqOff        sqringOffsets
	cqOff        cqringOffsets
}

// sqringOffsets is struct io_sqring_offsets: where in the SQ ring mapping
// each field lives.
type sqringOffsets struct {
	head        uint32
	tail        uint32
	ringMask    uint32
	ringEntries uint32
	flags       uint32
	dropped     uint32
	array       uint32
	resv1       uint32
	userAddr    uint64
}

// cqringOffsets is struct io_cqring_offsets: where in the CQ ring mapping
// each field lives.
type cqringOffsets struct {
	head        uint32
	tail        uint32
	ringMask    uint32
	ringEntries uint32
	overflow    uint32
	cqes        uint32
	flags       uint32
	resv1       uint32
	userAddr    uint64
}

// sqe is struct io_uring_sqe without the unions, which this package never
// needs: only the members that read, write and fsync use are named, the rest
// is padding that must still be zeroed on every reuse of a slot.
type sqe struct {
	opcode   uint8
	flags    uint8
	ioprio   uint16
	fd       int32
	off      uint64
	addr     uint64
	len      uint32
	opFlags  uint32 // rw_flags, fsync_flags, ...
	userData uint64
	_        [24]byte // buf_index, personality, splice_fd_in, addr3, __pad2
}

// cqe is struct io_uring_cqe in its default 16-byte form (no IORING_SETUP_CQE32).
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

const (
	// maxEntries is IORING_MAX_ENTRIES; larger requests fail with EINVAL,
	// which New must not confuse with a kernel that refuses io_uring.
	maxEntries = 32768

	// mmap offsets that select which region of the ring fd to map.
	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000

	// io_uring_params.features bits.
	featSingleMMap = 1 << 0 // SQ and CQ rings share one mapping (5.4)
	featRWCurPos   = 1 << 3 // arrived with IORING_OP_READ/WRITE in 5.6

	enterGetEvents = 1 << 0 // IORING_ENTER_GETEVENTS

	setupCoopTaskrun  = 1 << 8  // IORING_SETUP_COOP_TASKRUN
	setupSingleIssuer = 1 << 12 // IORING_SETUP_SINGLE_ISSUER
	setupDeferTaskrun = 1 << 13 // IORING_SETUP_DEFER_TASKRUN

	opFsync = 3  // IORING_OP_FSYNC
	opRead  = 22 // IORING_OP_READ
	opWrite = 23 // IORING_OP_WRITE

	fsyncDatasync = 1 << 0 // IORING_FSYNC_DATASYNC
)
