package report

import (
	"strings"
	"testing"
)

// A Left table lines its columns up as words, not figures: a row's last
// cell runs on without widening its column, a short row (a note under a
// disk) keeps the rows around it aligned, and no line ends in blanks.
func TestLeftTable(t *testing.T) {
	tb := Table{Title: "Block devices", Left: true, Header: []string{"NAME", "BUS", "LINK"}, Rows: [][]string{
		{"mmcblk0", "mmc", "SD sd uhs SDR104"},
		{"  card", "SanDisk SN64G, manfid/oemid 0x03/0x5344, made 01/2022"},
		{"nvme0n1", "nvme", ""},
	}}
	var b strings.Builder
	if err := tb.Print(&b, false); err != nil {
		t.Fatal(err)
	}
	want := "Block devices\n" +
		"NAME     BUS   LINK\n" +
		"mmcblk0  mmc   SD sd uhs SDR104\n" +
		"  card   SanDisk SN64G, manfid/oemid 0x03/0x5344, made 01/2022\n" +
		"nvme0n1  nvme\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}

	// Without a title or a header, as sysinfo's first lines and fleet's.
	b.Reset()
	Table{Left: true, Rows: [][]string{{"Host", "pi: Raspberry Pi 4"}, {"OS", "Debian"}}}.Print(&b, false)
	if want := "Host  pi: Raspberry Pi 4\nOS    Debian\n"; b.String() != want {
		t.Errorf("text %q, want %q", b.String(), want)
	}

	b.Reset()
	Table{Left: true, Header: []string{"host", "status"}, Rows: [][]string{{"pi1", "failed: a | b"}}}.Print(&b, true)
	if want := "| host | status |\n|---|---|\n| pi1 | failed: a \\| b |\n"; b.String() != want {
		t.Errorf("markdown %q, want %q", b.String(), want)
	}
}
