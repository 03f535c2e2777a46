package nettest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SSHD is Debian's OpenSSH server running in one host of a LAN, with its
// own configuration, host key and authorized_keys in Dir. Sessions get
// XDG_CACHE_HOME and TMPDIR inside Dir, so that hosts sharing this
// machine's filesystem still have caches and scratch space of their own.
type SSHD struct {
	Dir        string
	Addr       string // address:22
	HostKeyPub string // the first host key's public line, "ssh-ed25519 AAAA..."
	// HostKeys are the public lines of all its host keys, in the order
	// of the types StartSSHD was given.
	HostKeys []string
	cmd      *exec.Cmd
	done     chan struct{}
}

// StartSSHD starts sshd in host i, letting in the holder of authorizedKey
// (a public key line) as u (see NewUser); it is stopped when the test
// ends. Its host keys are of keyTypes (ssh-keygen's -t: ed25519, ecdsa,
// rsa), an ed25519 one when none is given: a server with several offers
// them all, and a client picks by its own order of preference.
func (l *LAN) StartSSHD(t testing.TB, i int, authorizedKey string, u *user.User, keyTypes ...string) *SSHD {
	t.Helper()
	if _, err := exec.LookPath("/usr/sbin/sshd"); err != nil {
		t.Fatalf("nettest: no /usr/sbin/sshd: install openssh-server (scripts/setup does)")
	}
	s := &SSHD{Dir: t.TempDir(), Addr: net.JoinHostPort(l.Hosts[i].Addr, "22"), done: make(chan struct{})}
	// The user's sessions read authorized_keys and own cache and tmp.
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, d := range []string{filepath.Dir(s.Dir), s.Dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"cache", "tmp"} {
		p := filepath.Join(s.Dir, d)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if len(keyTypes) == 0 {
		keyTypes = []string{"ed25519"}
	}
	var hostKeys strings.Builder
	for _, kt := range keyTypes {
		key := filepath.Join(s.Dir, "host_"+kt)
		mustRun(t, "ssh-keygen", "-q", "-t", kt, "-N", "", "-C", "", "-f", key)
		pub, err := os.ReadFile(key + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		s.HostKeys = append(s.HostKeys, strings.TrimSpace(string(pub)))
		fmt.Fprintf(&hostKeys, "HostKey %s\n", key)
	}
	s.HostKeyPub = s.HostKeys[0]
	if err := os.WriteFile(filepath.Join(s.Dir, "authorized_keys"), []byte(authorizedKey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Also on the namespace's own loopback, which only a jump through
	// this host reaches: a ProxyJump test can tell it went through.
	cfg := fmt.Sprintf(`ListenAddress %s
ListenAddress 127.0.0.1:22
%sPidFile none
AuthorizedKeysFile %s/authorized_keys
StrictModes no
PermitRootLogin no
AllowUsers %s
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
SetEnv XDG_CACHE_HOME=%s/cache TMPDIR=%s/tmp
MaxStartups 200
MaxSessions 100
LogLevel ERROR
`, s.Addr, hostKeys.String(), s.Dir, u.Username, s.Dir, s.Dir)
	conf := filepath.Join(s.Dir, "sshd_config")
	if err := os.WriteFile(conf, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// sshd's privilege separation needs this directory; Debian makes it
	// only when the service starts.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(s.Dir, "sshd.log"))
	if err != nil {
		t.Fatal(err)
	}
	s.cmd = l.Command(context.Background(), i, "/usr/sbin/sshd", "-D", "-e", "-f", conf)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("nettest: sshd: %v", err)
	}
	go func() { s.cmd.Wait(); log.Close(); close(s.done) }()
	t.Cleanup(s.Stop)
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := l.Enter(i, func() error {
			c, err := net.DialTimeout("tcp", s.Addr, time.Second)
			if err == nil {
				c.Close()
			}
			return err
		})
		if err == nil {
			return s
		}
		select {
		case <-s.done:
			b, _ := os.ReadFile(filepath.Join(s.Dir, "sshd.log"))
			t.Fatalf("nettest: sshd in %s exited: %s", l.Hosts[i].NS, b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nettest: sshd in %s not listening after 10 s: %v", l.Hosts[i].NS, err)
		}
		time.Sleep(pollEvery)
	}
}

// Stop ends sshd (the sessions it started go with it) and waits for it.
func (s *SSHD) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Kill()
	<-s.done
}
