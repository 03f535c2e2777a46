# thruput: the two commands a newcomer needs are `make run` and `make check`.

GO        ?= go
# The version the packages carry (scripts/package version), so that a
# binary from make dist and one from make deb of one commit say the same.
VERSION   ?= $(shell ./scripts/package version 2>/dev/null || echo dev)
COMMIT    := $(shell git rev-parse HEAD 2>/dev/null)
# Dates come from the commit, not the clock: two builds of one commit are
# the same bytes (with -trimpath, no build id and no VCS stamp).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
BUILD_DATE := $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS   := -s -w -buildid= -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)
# Every Pi and the usual SBCs: armv6 (Pi 1, Zero), armv7 (Pi 2), arm64, x86, RISC-V.
PLATFORMS := linux/arm/6 linux/arm/7 linux/arm64 linux/amd64 linux/riscv64

PREFIX    ?= /usr/local

.PHONY: build install dist deb release run check setup lint test test-main test-waits test-alone test-32 test-arm test-pi32 test-short bench clean

build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=false -ldflags '$(LDFLAGS)' -o bin/thruput ./cmd/thruput

# Puts bin/thruput on PATH: make install (as root), or
# make install PREFIX=$$HOME/.local for one user.
install: build
	install -D -m 0755 bin/thruput $(DESTDIR)$(PREFIX)/bin/thruput

# Static binaries for every platform into dist/, named thruput-OS-ARCH[vN].
dist:
	@mkdir -p dist
	@for p in $(PLATFORMS); do \
		os=$${p%%/*}; rest=$${p#*/}; arch=$${rest%%/*}; arm=$${rest#*/}; \
		name=thruput-$$os-$$arch; [ "$$arch" = arm ] && name=$$name"v"$$arm; \
		echo "dist/$$name"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch GOARM=$$( [ "$$arch" = arm ] && echo $$arm ) \
			$(GO) build -trimpath -buildvcs=false -ldflags '$(LDFLAGS)' -o dist/$$name ./cmd/thruput || exit 1; \
	done

# Debian packages for armhf (ARMv6: every Pi), arm64, amd64 and riscv64:
# dist/thruput_<version>_<arch>.deb, reproducible (scripts/package).
deb:
	./scripts/package deb

# The packages, a static tarball per architecture and SHA256SUMS.
release:
	./scripts/package release

# The main job: a short run of every method on this machine (disk methods
# in the current directory, network and HTTP over loopback), saved to the
# result store, and the path of its HTML report.
run: build
	./bin/thruput suite

# All the tests, as CI runs them: installs what they need (as root), then
# lint, the whole suite, real filesystems and qemu-user included, then the
# 32-bit ARM runs side by side: every package's tests built for ARMv6
# under qemu-user, and the 32-bit builds in the emulated Pi.
check: setup lint test test-32

setup:
	./scripts/setup

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOARCH=arm GOARM=6 $(GO) vet -trimpath ./... # -trimpath: the ARMv6 packages test-arm compiles
	$$($(GO) env GOPATH)/bin/staticcheck ./...

# -timeout bounds each package: cmd/thruput, the longest, takes about
# 11 minutes alone on a 2-core machine with a warm build cache; a hang
# fails at 25. Most of that is waiting: on SSH hosts in namespaces, on
# shaped links, on cards filled at a throttle's pace (cmd/thruput used
# 0.58 of a CPU over its run). So its tests that wait longest (WAITS) run
# in a go test of their own beside the rest (test-main), which still
# runs two packages at a time: 700 s of tests in about 450. Test
# binaries already share this machine (namespaces, loop devices and
# scratch directories are named by process and swept only when their
# process is dead; ports are picked free), and every test that compares
# a rate or a delay takes its reference in its own window.
# What judges the CPUs themselves (ALONE: which core a run was bound by,
# a cgroup's quota) runs after, alone, as does the emulated Pi's 32-bit
# run (TestRaspi3bArm32), which keeps a host core busy for minutes.
WAITS_TESTS := TestFleetRun TestFleetSuite TestFleetHostFailures TestFleetInterrupt \
	TestFleetNet TestFleetNetConcurrent TestFleetHostTimeout TestFleetExecControllerGone \
	TestFleetRemoteCommand TestFleetHostKeys TestFleetSelection \
	TestCapacityGenuine TestCapacityFakeCard TestCapacityClasses TestCapacityResume \
	TestCapacityInterrupt TestProbe TestProbeInterrupted TestProbeKilled \
	TestSuite TestSuiteRepeatAgainstServer TestSuiteDiskNamedSweep \
	TestSuiteStockServerBudget TestAlertsShapedLink TestCheckRPiSDAgainstFio
ALONE_TESTS := TestHealthPinnedCore TestHealthCgroupQuota
# Whole names, so that -skip over every package skips only these.
empty :=
space := $(empty) $(empty)
WAITS := ^($(subst $(space),|,$(strip $(WAITS_TESTS))))$$
ALONE := ^($(subst $(space),|,$(strip $(ALONE_TESTS))))$$
test:
	$(MAKE) -j2 --output-sync=target test-main test-waits
	$(MAKE) test-alone

test-main:
	$(GO) test -count=1 -timeout 25m -skip '^TestRaspi3bArm32$$|$(WAITS)|$(ALONE)' ./...

test-waits:
	$(GO) test -count=1 -timeout 25m -run '$(WAITS)' ./cmd/thruput

test-alone:
	$(GO) test -count=1 -timeout 5m -run '$(ALONE)' ./cmd/thruput

test-pi32:
	$(GO) test -count=1 -timeout 25m -run '^TestRaspi3bArm32$$' ./internal/pilab

# Neither of the two measures anything: they share the CPUs.
test-32:
	$(MAKE) -j2 --output-sync=target test-arm test-pi32

# Every package's tests built for the ARMv6 of a Pi 1 or Zero, 32-bit as
# Raspberry Pi OS's userland is, run by qemu-user as that CPU (an
# ARM1176). -short: the tests that need root, namespaces or seconds of
# measuring run natively in `test`. THRUPUT_TEST_EXEC hands the emulator
# to the tests that start a binary of their own (internal/exectest).
# -trimpath, as TestCrossBuilds and the package test build for ARMv6: the
# packages all three need are compiled once on a fresh machine.
ARM_EXEC := qemu-arm-static -cpu arm1176
test-arm:
	GOARCH=arm GOARM=6 CGO_ENABLED=0 THRUPUT_TEST_EXEC='$(ARM_EXEC)' \
		$(GO) test -short -count=1 -trimpath -timeout 15m -exec '$(ARM_EXEC)' ./...

# The developer's loop: unit, golden and fixture tests only, no root.
test-short:
	$(GO) test -short -count=1 ./...

bench: build
	./bench/sweep

clean:
	rm -rf bin dist
