package fleet

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kevinburke/ssh_config"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHOptions are the controller's SSH settings, OpenSSH's where it has one.
type SSHOptions struct {
	// ConfigFile is read like ssh -F; empty means ~/.ssh/config (absent is
	// fine).
	ConfigFile string
	// KnownHosts are known_hosts files checked before
	// ~/.ssh/known_hosts, which is always checked, as is the global
	// /etc/ssh/ssh_known_hosts. New keys are recorded in the first of
	// them (in ~/.ssh/known_hosts when none is given), as OpenSSH does
	// with UserKnownHostsFile.
	KnownHosts []string
	// AcceptNew records a key never seen before instead of refusing the
	// host (OpenSSH's StrictHostKeyChecking=accept-new). A changed key is
	// refused whatever this says.
	AcceptNew bool
	// ConnectTimeout bounds the TCP connect and the SSH handshake.
	ConnectTimeout time.Duration
}

// sshDialer opens SSH connections the way OpenSSH would for the same
// configuration: ~/.ssh/config's Host aliases, User, Port, IdentityFile
// and ProxyJump, the agent, and known_hosts.
type sshDialer struct {
	opts  SSHOptions
	cfg   *ssh_config.Config
	home  string
	local string // the local user name, ssh's default remote user
	khMu  sync.Mutex
	dummy ssh.PublicKey
}

func newDialer(o SSHOptions) (*sshDialer, error) {
	home, _ := os.UserHomeDir()
	d := &sshDialer{opts: o, home: home}
	if u, err := user.Current(); err == nil {
		d.local = u.Username
	}
	d.opts.KnownHosts = nil
	for _, f := range append(slices.Clone(o.KnownHosts), filepath.Join(home, ".ssh", "known_hosts")) {
		if !slices.Contains(d.opts.KnownHosts, f) {
			d.opts.KnownHosts = append(d.opts.KnownHosts, f)
		}
	}
	if d.opts.ConnectTimeout == 0 {
		d.opts.ConnectTimeout = 10 * time.Second
	}
	cfgFile := o.ConfigFile
	if cfgFile == "" {
		cfgFile = filepath.Join(home, ".ssh", "config")
	}
	if f, err := os.Open(cfgFile); err == nil {
		d.cfg, err = ssh_config.Decode(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cfgFile, err)
		}
	} else if o.ConfigFile != "" {
		return nil, err
	}
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	if d.dummy, err = ssh.NewPublicKey(pub); err != nil {
		return nil, err
	}
	return d, nil
}

// target is a host with ~/.ssh/config applied: what is dialled, as whom.
type target struct {
	hostname   string
	port       int
	user       string
	identities []string
	proxyJump  string
}

func (t target) hostport() string { return net.JoinHostPort(t.hostname, strconv.Itoa(t.port)) }

func (d *sshDialer) get(alias, key string) string {
	if d.cfg == nil {
		return ""
	}
	v, _ := d.cfg.Get(alias, key)
	return v
}

// resolve applies the precedence ssh has: what the command line or the
// inventory says, then ~/.ssh/config, then the defaults.
func (d *sshDialer) resolve(h Host) target {
	alias := h.addr()
	t := target{hostname: alias, port: h.Port, user: h.User}
	if v := d.get(alias, "HostName"); v != "" {
		t.hostname = strings.ReplaceAll(v, "%h", alias)
	}
	if t.port == 0 {
		t.port, _ = strconv.Atoi(d.get(alias, "Port"))
	}
	if t.port == 0 {
		t.port = 22
	}
	if t.user == "" {
		t.user = d.get(alias, "User")
	}
	if t.user == "" {
		t.user = d.local
	}
	if h.Identity != "" {
		t.identities = []string{d.expand(h.Identity, t)}
	} else if d.cfg != nil {
		ids, _ := d.cfg.GetAll(alias, "IdentityFile")
		for _, id := range ids {
			t.identities = append(t.identities, d.expand(id, t))
		}
	}
	if pj := d.get(alias, "ProxyJump"); pj != "" && !strings.EqualFold(pj, "none") {
		t.proxyJump = pj
	}
	return t
}

func (d *sshDialer) expand(p string, t target) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		p = filepath.Join(d.home, rest)
	}
	return strings.NewReplacer("%d", d.home, "%u", d.local, "%r", t.user, "%h", t.hostname, "%%", "%").Replace(p)
}

// Conn is an SSH connection to one host, with the jump hosts it goes
// through.
type Conn struct {
	*ssh.Client
	jumps []*ssh.Client
}

// Close closes the connection and then its jump hosts.
func (c *Conn) Close() error {
	err := c.Client.Close()
	for _, j := range slices.Backward(c.jumps) {
		j.Close()
	}
	return err
}

// dial connects to h, through its ProxyJump hosts if it has any.
func (d *sshDialer) dial(ctx context.Context, h Host) (*Conn, error) {
	return d.dialTarget(ctx, d.resolve(h), 0)
}

func (d *sshDialer) dialTarget(ctx context.Context, t target, depth int) (*Conn, error) {
	if depth > 4 {
		return nil, errors.New("ProxyJump chain longer than 4 hosts")
	}
	cfg, err := d.clientConfig(t)
	if err != nil {
		return nil, err
	}
	addr := t.hostport()
	ctx, cancel := context.WithTimeoutCause(ctx, d.opts.ConnectTimeout, fmt.Errorf("no SSH answer within %s", d.opts.ConnectTimeout))
	defer cancel()
	var conn net.Conn
	var jumps []*ssh.Client
	if t.proxyJump != "" {
		// Each hop of "a,b" is dialled through the one before it.
		hops := strings.Split(t.proxyJump, ",")
		first, err := ParseHost(hops[0])
		if err != nil {
			return nil, fmt.Errorf("ProxyJump %q: %w", t.proxyJump, err)
		}
		jt := d.resolve(first)
		if len(hops) > 1 {
			jt.proxyJump = ""
		}
		jc, err := d.dialTarget(ctx, jt, depth+1)
		if err != nil {
			return nil, fmt.Errorf("jump host %s: %w", hops[0], err)
		}
		jumps = append(jc.jumps, jc.Client)
		for _, hop := range hops[1:] {
			hh, err := ParseHost(hop)
			if err != nil {
				closeAll(jumps)
				return nil, fmt.Errorf("ProxyJump %q: %w", t.proxyJump, err)
			}
			ht := d.resolve(hh)
			c, err := d.handshake(ctx, jumps[len(jumps)-1], ht)
			if err != nil {
				closeAll(jumps)
				return nil, fmt.Errorf("jump host %s: %w", hop, err)
			}
			jumps = append(jumps, c)
		}
		conn, err = jumps[len(jumps)-1].DialContext(ctx, "tcp", addr)
		if err != nil {
			closeAll(jumps)
			return nil, fmt.Errorf("connect to %s through %s: %w", addr, t.proxyJump, stopped(ctx, err))
		}
	} else {
		var nd net.Dialer
		if conn, err = nd.DialContext(ctx, "tcp", addr); err != nil {
			return nil, fmt.Errorf("connect to %s: %w", addr, stopped(ctx, unwrapOp(err)))
		}
	}
	c, err := clientOver(ctx, conn, addr, cfg)
	if err != nil {
		closeAll(jumps)
		return nil, d.explain(err, t)
	}
	return &Conn{Client: c, jumps: jumps}, nil
}

func (d *sshDialer) handshake(ctx context.Context, via *ssh.Client, t target) (*ssh.Client, error) {
	cfg, err := d.clientConfig(t)
	if err != nil {
		return nil, err
	}
	conn, err := via.DialContext(ctx, "tcp", t.hostport())
	if err != nil {
		return nil, err
	}
	c, err := clientOver(ctx, conn, t.hostport(), cfg)
	if err != nil {
		return nil, d.explain(err, t)
	}
	return c, nil
}

// clientOver runs the SSH handshake on conn, bounded by ctx: a server
// that accepts the TCP connection and then says nothing must not hang
// the controller, past its timeout or an interrupt.
func clientOver(ctx context.Context, conn net.Conn, addr string, cfg *ssh.ClientConfig) (*ssh.Client, error) {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, cfg)
	if !stop() {
		if err == nil {
			c.Close()
		}
		return nil, stopped(ctx, err)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return ssh.NewClient(c, chans, reqs), nil
}

// errInterrupted is why a host's work stopped when the controller was
// interrupted.
var errInterrupted = errors.New("interrupted")

// stopped gives why ctx ended when it has (the timeout's own words, or
// an interrupt), else err: a connection closed because the host timed
// out must not read as the host closing it.
func stopped(ctx context.Context, err error) error {
	switch ctx.Err() {
	case nil:
		return err
	case context.DeadlineExceeded:
		return context.Cause(ctx)
	}
	return errInterrupted
}

func closeAll(cs []*ssh.Client) {
	for _, c := range slices.Backward(cs) {
		c.Close()
	}
}

func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// explain turns the handshake's errors into what the user must do.
func (d *sshDialer) explain(err error, t target) error {
	var hk *hostKeyError
	if errors.As(err, &hk) {
		return hk
	}
	if strings.Contains(err.Error(), "unable to authenticate") {
		var tried []string
		if os.Getenv("SSH_AUTH_SOCK") != "" {
			tried = append(tried, "the agent's keys")
		}
		tried = append(tried, d.identityFiles(t)...)
		if len(tried) == 0 {
			tried = append(tried, "no key: no agent (SSH_AUTH_SOCK) and no identity file")
		}
		return fmt.Errorf("%s@%s refused the keys (tried %s)", t.user, t.hostport(), strings.Join(tried, ", "))
	}
	return fmt.Errorf("ssh %s: %w", t.hostport(), unwrapOp(err))
}

func (d *sshDialer) clientConfig(t target) (*ssh.ClientConfig, error) {
	cb, algos, err := d.hostKeys(t.hostport())
	if err != nil {
		return nil, err
	}
	return &ssh.ClientConfig{
		User:              t.user,
		Auth:              []ssh.AuthMethod{ssh.PublicKeysCallback(func() ([]ssh.Signer, error) { return d.signers(t), nil })},
		HostKeyCallback:   cb,
		HostKeyAlgorithms: algos,
		Timeout:           d.opts.ConnectTimeout,
	}, nil
}

// identityFiles are the files ssh would offer: the configured ones, else
// the default names that exist.
func (d *sshDialer) identityFiles(t target) []string {
	if len(t.identities) > 0 {
		return t.identities
	}
	var out []string
	for _, n := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		p := filepath.Join(d.home, ".ssh", n)
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// signers are the agent's keys, then the identity files' keys. A file
// with a passphrase is skipped: a tool running many hosts at once
// never prompts (load it into the agent instead).
func (d *sshDialer) signers(t target) []ssh.Signer {
	var out []ssh.Signer
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if c, err := net.Dial("unix", sock); err == nil {
			if s, err := agent.NewClient(c).Signers(); err == nil {
				out = append(out, s...)
			}
			// The agent signs during the handshake: the connection
			// stays open until the process ends, like ssh's.
		}
	}
	for _, p := range d.identityFiles(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if s, err := ssh.ParsePrivateKey(b); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// globalKnownHosts is OpenSSH's GlobalKnownHostsFile: keys the
// administrator vouches for, read but never written.
const globalKnownHosts = "/etc/ssh/ssh_known_hosts"

// hostKeyError is a host key that is refused; its text is OpenSSH's.
type hostKeyError struct {
	msg string
}

func (e *hostKeyError) Error() string { return e.msg }

// hostKeys gives the known_hosts check for one address and the key
// algorithms to ask for. The algorithms are those known_hosts holds for
// the host: otherwise the server may pick a type that known_hosts has no
// line for (it holds ed25519, the server offers rsa-sha2-512 first) and a
// known host would look unknown (golang/go#49631).
func (d *sshDialer) hostKeys(hostport string) (ssh.HostKeyCallback, []string, error) {
	var files []string
	for _, f := range append(slices.Clone(d.opts.KnownHosts), globalKnownHosts) {
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	check := func(string, net.Addr, ssh.PublicKey) error { return &knownhosts.KeyError{} }
	if len(files) > 0 {
		cb, err := knownhosts.New(files...)
		if err != nil {
			return nil, nil, fmt.Errorf("known hosts: %w", err)
		}
		check = cb
	}
	var algos []string
	var ke *knownhosts.KeyError
	if err := check(hostport, &net.TCPAddr{IP: net.IPv4zero}, d.dummy); errors.As(err, &ke) {
		for _, k := range ke.Want {
			algos = append(algos, keyAlgorithms(k.Key.Type())...)
		}
	}
	cb := func(host string, remote net.Addr, key ssh.PublicKey) error {
		err := check(host, remote, key)
		var ke *knownhosts.KeyError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ke) && len(ke.Want) == 0:
			if !d.opts.AcceptNew {
				return &hostKeyError{fmt.Sprintf("host key for %s is not known (%s %s): check it and add it to %s (ssh-keyscan), or pass --accept-new-host-keys",
					host, key.Type(), ssh.FingerprintSHA256(key), d.opts.KnownHosts[0])}
			}
			return d.record(host, key)
		case errors.As(err, &ke):
			where := ke.Want[0].Filename + ":" + strconv.Itoa(ke.Want[0].Line)
			return &hostKeyError{fmt.Sprintf("WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED for %s! It is possible that someone is doing something nasty (a man-in-the-middle attack), or the host key has just been changed. The %s key sent by the remote host is %s. Offending key in %s. Host key verification failed.",
				host, key.Type(), ssh.FingerprintSHA256(key), where)}
		}
		return &hostKeyError{fmt.Sprintf("host key for %s refused: %v", host, err)}
	}
	return cb, algos, nil
}

func keyAlgorithms(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}

// record appends a newly seen key to the first known_hosts file, as
// accept-new does; hosts dialled at once append one line each.
func (d *sshDialer) record(hostport string, key ssh.PublicKey) error {
	d.khMu.Lock()
	defer d.khMu.Unlock()
	file := d.opts.KnownHosts[0]
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("recording the host key: %w", err)
	}
	_, err = io.WriteString(f, knownhosts.Line([]string{knownhosts.Normalize(hostport)}, key)+"\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
