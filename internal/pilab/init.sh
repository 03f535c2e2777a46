#!/bin/busybox sh
# The guest's init: loads the modules the devices need, waits for the
# devices, then prints `thruput sysinfo --json` and the kernel's own view
# of the same hardware between markers on the console; with a /runs.sh
# it mounts the SD card (ext4) and the USB disk (formatted vfat here) and
# runs that script too, before the end marker. Then it powers off.
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp /run
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
for m in /modules/*.ko; do
	insmod "$m" || echo "@@MODULE-FAILED $m"
done
# The USB disk, the USB network adapter and the SD card enumerate after
# their drivers load; 30 s is far more than a boot here needs.
i=0
while [ $i -lt 150 ]; do
	disks=$(ls /sys/block | grep -c -e '^sd' -e '^mmcblk')
	nics=$(ls /sys/class/net | grep -vc '^lo$')
	[ "$disks" -ge 2 ] && [ "$nics" -ge 1 ] && break
	sleep 0.2
	i=$((i + 1))
done
# Kernel messages would land between the markers.
echo 1 >/proc/sys/kernel/printk
ip link set lo up
for n in /sys/class/net/*; do ip link set "${n##*/}" up; done
sleep 1

dump() {
	for f in "$@"; do
		if [ -L "$f" ]; then
			echo "@@L $f $(readlink -f "$f")"
		elif [ -f "$f" ]; then
			echo "@@F $f"
			tr '\000' '\n' <"$f"
			echo
			echo "@@E"
		fi
	done
}
# The mini UART sometimes sends a stray byte as the console settles; the
# empty line keeps it off the marker.
echo
echo "@@PILAB-BEGIN"
for c in "uname -m" "uname -r" "od -An -tx1 -N20 /bin/sh" "od -An -tx1 -N20 /bin/thruput"; do
	echo "@@F $c"
	$c
	echo "@@E"
done
echo "@@F thruput sysinfo --json"
/bin/thruput sysinfo --json
echo "@@E rc=$?"
dump /proc/cpuinfo /proc/device-tree/model /proc/device-tree/compatible
for d in /sys/bus/usb/devices/*; do
	dump "$d" "$d/driver"
	# A root hub's parent is the host controller; its driver is the bus's.
	case ${d##*/} in usb*) dump "$d/../driver" ;; esac
	dump "$d"/speed "$d"/version "$d"/product "$d"/idVendor "$d"/idProduct "$d"/bDeviceClass
done
for n in /sys/class/net/*; do
	dump "$n/device" "$n/device/driver"
done
for b in /sys/block/*; do
	dump "$b" "$b/device" "$b/device/driver" "$b/size"
	# An SD card's host controller: mmcblk0 -> mmc0:4567 -> mmc0 -> host.
	case ${b##*/} in mmcblk*) dump "$b/device/../../../driver" ;; esac
done
# run prints a command's output as a file named NAME, its exit status
# after @@E, and what it wrote to stderr as the file "NAME (stderr)".
run() {
	name=$1
	shift
	echo "@@F $name"
	"$@" 2>/tmp/stderr
	echo "@@E rc=$?"
	if [ -s /tmp/stderr ]; then
		echo "@@F $name (stderr)"
		cat /tmp/stderr
		echo "@@E"
	fi
}
if [ -f /runs.sh ]; then
	mkdir -p /mnt/sd /mnt/usb
	run "mount sd" mount -t ext4 /dev/mmcblk0 /mnt/sd
	run "mkdosfs usb" mkdosfs -n PILABUSB /dev/sda
	run "mount usb" mount -t vfat /dev/sda /mnt/usb
	. /runs.sh
fi
echo "@@PILAB-END"
# QEMU's raspi3b cannot power off; the watchdog's reset (bcm2835_wdt)
# ends QEMU, which runs with -no-reboot.
reboot -f
