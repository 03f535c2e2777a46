package sysinfo

import (
	"debug/elf"
	"io"
	"os"
	"path/filepath"
)

// elfMachines names ELF machine numbers as uname -m spells the matching
// kernels' architecture families.
var elfMachines = map[elf.Machine]string{
	elf.EM_AARCH64: "aarch64", elf.EM_ARM: "arm", elf.EM_X86_64: "x86_64", elf.EM_386: "i386",
	elf.EM_RISCV: "riscv64", elf.EM_PPC64: "ppc64", elf.EM_S390: "s390x", elf.EM_MIPS: "mips",
	elf.EM_LOONGARCH: "loongarch64",
}

// userland reads the ELF header of the root's /bin/sh: a 64-bit kernel
// runs 32-bit programs (Raspberry Pi OS shipped armhf userlands on arm64
// kernels for years), and it is the programs' width that a benchmark's
// code is built for. Only the 20 bytes up to e_machine are read.
func (fs FS) userland() (arch string, bits int) {
	if fs.Root == "" {
		return "", 0
	}
	f, err := os.Open(filepath.Join(fs.Root, "bin/sh"))
	if err != nil {
		return "", 0
	}
	defer f.Close()
	hdr := make([]byte, 20)
	if _, err := io.ReadFull(f, hdr); err != nil || string(hdr[:4]) != elf.ELFMAG {
		return "", 0
	}
	tap.file(filepath.Join(fs.Root, "bin/sh"), hdr)
	switch elf.Class(hdr[elf.EI_CLASS]) {
	case elf.ELFCLASS32:
		bits = 32
	case elf.ELFCLASS64:
		bits = 64
	default:
		return "", 0
	}
	var m uint16
	switch elf.Data(hdr[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		m = uint16(hdr[18]) | uint16(hdr[19])<<8
	case elf.ELFDATA2MSB:
		m = uint16(hdr[18])<<8 | uint16(hdr[19])
	}
	arch = elfMachines[elf.Machine(m)]
	if arch == "riscv64" && bits == 32 {
		arch = "riscv32"
	}
	return arch, bits
}
