package uring

import (
	"testing"
	"unsafe"
)

// The expected numbers are those of include/uapi/linux/io_uring.h, identical
// on every architecture; run this under qemu-user (GOARCH=arm etc.) to check
// the 32-bit layouts too.
func TestLayout(t *testing.T) {
	var (
		p  params
		sq sqringOffsets
		cq cqringOffsets
		s  sqe
		c  cqe
	)
	for _, tc := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(io_uring_params)", unsafe.Sizeof(p), 120},
		{"io_uring_params.sq_entries", unsafe.Offsetof(p.sqEntries), 0},
		{"io_uring_params.cq_entries", unsafe.Offsetof(p.cqEntries), 4},
		{"io_uring_params.flags", unsafe.Offsetof(p.flags), 8},
		{"io_uring_params.sq_thread_cpu", unsafe.Offsetof(p.sqThreadCPU), 12},
		{"io_uring_params.sq_thread_idle", unsafe.Offsetof(p.sqThreadIdle), 16},
		{"io_uring_params.features", unsafe.Offsetof(p.features), 20},
		{"io_uring_params.wq_fd", unsafe.Offsetof(p.wqFD), 24},
		{"io_uring_params.resv", unsafe.Offsetof(p.resv), 28},
		{"io_uring_params.sq_off", unsafe.Offsetof(p.sqOff), 40},
		{"io_uring_params.cq_off", unsafe.Offsetof(p.cqOff), 80},

		{"sizeof(io_sqring_offsets)", unsafe.Sizeof(sq), 40},
		{"io_sqring_offsets.head", unsafe.Offsetof(sq.head), 0},
		{"io_sqring_offsets.tail", unsafe.Offsetof(sq.tail), 4},
		{"io_sqring_offsets.ring_mask", unsafe.Offsetof(sq.ringMask), 8},
		{"io_sqring_offsets.ring_entries", unsafe.Offsetof(sq.ringEntries), 12},
		{"io_sqring_offsets.flags", unsafe.Offsetof(sq.flags), 16},
		{"io_sqring_offsets.dropped", unsafe.Offsetof(sq.dropped), 20},
		{"io_sqring_offsets.array", unsafe.Offsetof(sq.array), 24},
		{"io_sqring_offsets.resv1", unsafe.Offsetof(sq.resv1), 28},
		{"io_sqring_offsets.user_addr", unsafe.Offsetof(sq.userAddr), 32},

		{"sizeof(io_cqring_offsets)", unsafe.Sizeof(cq), 40},
		{"io_cqring_offsets.head", unsafe.Offsetof(cq.head), 0},
		{"io_cqring_offsets.tail", unsafe.Offsetof(cq.tail), 4},
		{"io_cqring_offsets.ring_mask", unsafe.Offsetof(cq.ringMask), 8},
		{"io_cqring_offsets.ring_entries", unsafe.Offsetof(cq.ringEntries), 12},
		{"io_cqring_offsets.overflow", unsafe.Offsetof(cq.overflow), 16},
		{"io_cqring_offsets.cqes", unsafe.Offsetof(cq.cqes), 20},
		{"io_cqring_offsets.flags", unsafe.Offsetof(cq.flags), 24},
		{"io_cqring_offsets.resv1", unsafe.Offsetof(cq.resv1), 28},
		{"io_cqring_offsets.user_addr", unsafe.Offsetof(cq.userAddr), 32},

		{"sizeof(io_uring_sqe)", unsafe.Sizeof(s), 64},
		{"io_uring_sqe.opcode", unsafe.Offsetof(s.opcode), 0},
		{"io_uring_sqe.flags", unsafe.Offsetof(s.flags), 1},
		{"io_uring_sqe.ioprio", unsafe.Offsetof(s.ioprio), 2},
		{"io_uring_sqe.fd", unsafe.Offsetof(s.fd), 4},
		{"io_uring_sqe.off", unsafe.Offsetof(s.off), 8},
		{"io_uring_sqe.addr", unsafe.Offsetof(s.addr), 16},
		{"io_uring_sqe.len", unsafe.Offsetof(s.len), 24},
		{"io_uring_sqe.rw_flags", unsafe.Offsetof(s.opFlags), 28},
		{"io_uring_sqe.user_data", unsafe.Offsetof(s.userData), 32},

		{"sizeof(io_uring_cqe)", unsafe.Sizeof(c), 16},
		{"io_uring_cqe.user_data", unsafe.Offsetof(c.userData), 0},
		{"io_uring_cqe.res", unsafe.Offsetof(c.res), 8},
		{"io_uring_cqe.flags", unsafe.Offsetof(c.flags), 12},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, kernel ABI says %d", tc.name, tc.got, tc.want)
		}
	}
}
