package main

import (
	"net"
	"os"
	"strings"
	"testing"
)

// TestMessagesNameTheFlag: every message names the flag of the command
// the user ran, usage and port errors exit 2, and cobra's own wording
// never reaches the user.
func TestMessagesNameTheFlag(t *testing.T) {
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"disk", "random", dir, "--size", "1000T"}, "use a smaller --size", "--file-size"},
		{[]string{"disk", "io", dir, "--size", "1000T"}, "use a smaller --size", "--file-size"},
		{[]string{"disk", "mark", dir, "--size", "1000T"}, "use a smaller --size", "--file-size"},
		{[]string{"disk", "sweep", dir, "--file-size", "1000T"}, "use a smaller --file-size", "--size "},
		{[]string{"disk", "sweep", dir, "--bs", "2M", "--file-size", "1M"}, "--bs: block size 2.0 MiB is larger than --file-size", "--sizes"},
		{[]string{"serve", "--listen", busy.Addr().String()}, "is in use", ""},
		{[]string{"serve", "--listen", "127.0.0.1:99999"}, "from 0 to 65535", ""},
		{[]string{"disk", "sweep", dir, "-o", dir + "/x.xlsx"}, "no format writes .xlsx files", ""},
		{[]string{"results", "show"}, "results show: wrong arguments (got no argument); usage: thruput results show ID", "arg(s)"},
		{[]string{"compare"}, "compare: wrong arguments", "arg(s)"},
	} {
		o := thruput(t, c.args...)
		if o.code != 2 || !strings.Contains(o.stderr, c.want) || (c.not != "" && strings.Contains(o.stderr, c.not)) {
			t.Errorf("%v: exit %d %q; want exit 2 and %q, never %q", c.args, o.code, o.stderr, c.want, c.not)
		}
	}
	if _, err := os.Stat(dir + "/x.xlsx"); err == nil {
		t.Error("-o x.xlsx wrote a file")
	}
}
