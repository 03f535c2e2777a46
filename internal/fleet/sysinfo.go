package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/report"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// HostInfo is one host's machine context as fleet sysinfo collects it:
// the host's own `thruput sysinfo --json`, and the facts the table shows.
type HostInfo struct {
	Host     string `json:"host"`
	Platform string `json:"platform,omitempty"`
	// SoC is the system on a chip, from the device tree (BCM2711,
	// JH7110), where the host has one.
	SoC     string         `json:"soc,omitempty"`
	Machine *result.Host   `json:"machine,omitempty"`
	System  *result.System `json:"system,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// Sysinfo collects every host's `thruput sysinfo`.
func (f *Fleet) Sysinfo(ctx context.Context, hosts []Host) []HostInfo {
	out := make([]HostInfo, len(hosts))
	for i, h := range hosts {
		out[i].Host = h.Name
	}
	errs := f.each(ctx, hosts, "done", func(ctx context.Context, i int, h Host) error {
		info := &out[i]
		s, err := f.open(ctx, h)
		if err != nil {
			return err
		}
		defer s.Close()
		info.Platform = s.platform.String()
		data, err := s.command(ctx, []string{"sysinfo", "--json"})
		if err != nil {
			return err
		}
		var doc struct {
			Host   result.Host   `json:"host"`
			System result.System `json:"system"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("the host returned output that is not thruput's: %v", err)
		}
		info.Machine, info.System = &doc.Host, &doc.System
		info.SoC = doc.Host.SoC
		return nil
	})
	for i, err := range errs {
		if err != nil {
			out[i].Error = err.Error()
		}
	}
	return out
}

// WriteSysinfo prints one row per host: model, SoC and CPU, memory,
// storage and network interfaces with their link speeds.
func WriteSysinfo(w io.Writer, infos []HostInfo, format string) error {
	if format == "json" {
		return writeJSON(w, infos)
	}
	t := report.Table{Header: []string{"host", "platform", "model", "SoC / CPU", "memory", "storage", "network", "status"}, Left: true}
	for _, in := range infos {
		if in.Machine == nil {
			t.Rows = append(t.Rows, []string{in.Host, dash(in.Platform), "-", "-", "-", "-", "-", "failed: " + in.Error})
			continue
		}
		m := in.Machine
		var cpu []string
		for _, c := range []string{in.SoC, m.CPUModel} {
			if c != "" && !slices.Contains(cpu, c) {
				cpu = append(cpu, c)
			}
		}
		chip := strings.Join(cpu, ", ")
		if m.CPUCores > 0 {
			chip += fmt.Sprintf(" (%d cores)", m.CPUCores)
		}
		var disks, nics []string
		for _, d := range in.System.BlockDevices {
			s := d.Name
			if d.SizeBytes > 0 {
				s += " " + units.IEC(d.SizeBytes)
			}
			if d.Bus != "" {
				s += " " + d.Bus
			}
			disks = append(disks, s)
		}
		for _, n := range in.System.NetInterfaces {
			s := n.Name
			switch {
			case n.WiFi != nil && n.WiFi.TxBitrateMbps > 0:
				s += " wifi " + strconv.FormatFloat(n.WiFi.TxBitrateMbps, 'f', -1, 64) + " Mbit/s"
			case n.SpeedMbps > 0:
				s += " " + strconv.Itoa(n.SpeedMbps) + " Mbit/s"
			case n.Carrier != nil && !*n.Carrier:
				s += " no link"
			}
			nics = append(nics, s)
		}
		mem := "-"
		if m.MemoryBytes > 0 {
			mem = units.IEC(m.MemoryBytes)
		}
		t.Rows = append(t.Rows, []string{in.Host, dash(in.Platform), dash(m.Board), dash(strings.TrimSpace(chip)), mem, dash(strings.Join(disks, ", ")), dash(strings.Join(nics, ", ")), "ok"})
	}
	return t.Print(w, format == "markdown")
}
