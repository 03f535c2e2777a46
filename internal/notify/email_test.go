package notify

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// python is Debian's, which has python3-aiosmtpd; the python3 on PATH may
// be another (pyenv) without it.
const python = "/usr/bin/python3"

// selfSigned writes a certificate for 127.0.0.1 and its key, PEM, into
// dir, and returns their paths.
func selfSigned(t *testing.T, dir string) (cert, key string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "thruput test smtp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}), 0o600)
	return cert, key
}

// smtpServer starts aiosmtpd with args, storing mail in a maildir, and
// returns its address and the maildir.
func smtpServer(t *testing.T, args ...string) (addr, maildir string) {
	peer(t, python, "python3-aiosmtpd")
	if exec.Command(python, "-c", "import aiosmtpd").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-aiosmtpd missing (scripts/setup installs it)")
		}
		t.Skip("python3-aiosmtpd missing (apt-get install python3-aiosmtpd)")
	}
	addr = freePort(t)
	maildir = filepath.Join(t.TempDir(), "mail")
	cmd := exec.Command(python, append(args, addr, maildir)...)
	start(t, cmd, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Second))
		line, _ := bufio.NewReader(c).ReadString('\n')
		return strings.HasPrefix(line, "220")
	})
	return addr, maildir
}

// cliServer is aiosmtpd's own command line: `-l ADDR -c Mailbox DIR`.
func cliServer(t *testing.T, flags ...string) (addr, maildir string) {
	// The address and maildir come last; -l takes the one, Mailbox the other.
	script := `import sys
from aiosmtpd.main import main
addr, maildir = sys.argv[-2:]
main(sys.argv[1:-2] + ["-n", "-l", addr, "-c", "aiosmtpd.handlers.Mailbox", maildir])
`
	return smtpServer(t, append([]string{"-c", script}, flags...)...)
}

// mails reads the messages in a maildir.
func mails(t *testing.T, maildir string) []*mail.Message {
	t.Helper()
	des, _ := os.ReadDir(filepath.Join(maildir, "new"))
	var out []*mail.Message
	for _, de := range des {
		f, err := os.Open(filepath.Join(maildir, "new", de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m, err := mail.ReadMessage(f)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(m.Body)
		f.Close()
		m.Body = strings.NewReader(string(body))
		out = append(out, m)
	}
	return out
}

// aiosmtpd with a certificate requires STARTTLS before MAIL (its
// --requiretls is the default): the mail arriving shows thruput used it.
func TestEmailSTARTTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	addr, maildir := cliServer(t, "--tlscert", cert, "--tlskey", key)
	r := Receiver{Name: "mail", Email: &Email{SMTP: addr, From: "thruput on pi4 <pi@pi4.example.org>", To: []string{"ops@example.org", "Ålesund NOC <noc@example.org>"}, CAFile: cert}}
	if err := Validate(r); err != nil {
		t.Fatal(err)
	}
	n := sample()
	n.DashboardURL = "http://pi4:8080/"
	spoolDir := t.TempDir()
	if err := Send(context.Background(), spoolDir, r, n); err != nil {
		t.Fatal(err)
	}
	if err := Send(context.Background(), spoolDir, r, n); err != nil {
		t.Fatal(err)
	}
	ms := mails(t, maildir)
	if len(ms) != 1 {
		t.Fatalf("maildir holds %d mails, want 1", len(ms))
	}
	m := ms[0]
	var dec mime.WordDecoder
	if subj, _ := dec.DecodeHeader(m.Header.Get("Subject")); subj != n.Summary {
		t.Errorf("Subject %q, want %q", subj, n.Summary)
	}
	if from := m.Header.Get("From"); from != `"thruput on pi4" <pi@pi4.example.org>` {
		t.Errorf("From %q", from)
	}
	if tos, err := m.Header.AddressList("To"); err != nil || len(tos) != 2 || tos[0].Address != "ops@example.org" || tos[1].Name != "Ålesund NOC" || tos[1].Address != "noc@example.org" {
		t.Errorf("To %q: %v", m.Header.Get("To"), err)
	}
	if id := m.Header.Get("Message-Id"); id != "<"+n.ID()+"@pi4.example.org>" {
		t.Errorf("Message-ID %q", id)
	}
	if d, err := m.Header.Date(); err != nil || time.Since(d) > time.Minute {
		t.Errorf("Date %q: %v", m.Header.Get("Date"), err)
	}
	if m.Header.Get("X-Mailfrom") != "pi@pi4.example.org" || !strings.Contains(m.Header.Get("X-Rcptto"), "noc@example.org") {
		t.Errorf("envelope %q to %q", m.Header.Get("X-Mailfrom"), m.Header.Get("X-Rcptto"))
	}
	if m.Header.Get("Content-Transfer-Encoding") != "quoted-printable" || m.Header.Get("Auto-Submitted") != "auto-generated" {
		t.Errorf("headers %v", m.Header)
	}
	// The maildir keeps lines with the local \n.
	b, _ := io.ReadAll(quotedprintable.NewReader(m.Body))
	body := strings.ReplaceAll(string(b), "\r\n", "\n")
	for _, want := range []string{n.Summary + "\n\n", "Status: firing\n", "Figure: 61.2 ± 1.4 Mbit/s\n", "Threshold: 80 Mbit/s\n",
		"Series: method=net.client host=pi4 target=10.0.0.2:5201 direction=download link=lan\n", "Started: 2026-11-28T13:00:05Z\n",
		"Runs: 20261128T050000Z-a1 20261128T130000Z-b2\n", "Dashboard: http://pi4:8080/\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}

	// Without the CA file the self-signed certificate is not trusted: the
	// mail waits in the spool, it is not sent in clear.
	r.Email.CAFile = ""
	err := Send(context.Background(), spoolDir, r, resolved(n))
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") || !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), "kept in the spool") {
		t.Errorf("send with an untrusted certificate: %v", err)
	}
	if len(mails(t, maildir)) != 1 {
		t.Error("a mail arrived over an untrusted TLS session")
	}
}

// AUTH PLAIN over STARTTLS, to an aiosmtpd that requires both.
func TestEmailAuth(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	script := `import sys, ssl, signal
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox
from aiosmtpd.smtp import AuthResult
cert, key, addr, maildir = sys.argv[1:]
host, port = addr.rsplit(":", 1)
def auth(server, session, envelope, mechanism, data):
    # handled=False: aiosmtpd answers 535 itself when it fails.
    return AuthResult(success=mechanism == "PLAIN" and data.login == b"pi" and data.password == b"s3cret", handled=False)
ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
ctx.load_cert_chain(cert, key)
Controller(Mailbox(maildir), hostname=host, port=int(port), tls_context=ctx, require_starttls=True,
           authenticator=auth, auth_required=True).start()
signal.pause()
`
	addr, maildir := smtpServer(t, "-c", script, cert, key)
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("wrong\n"), 0o600)
	r := Receiver{Name: "mail", Email: &Email{SMTP: addr, From: "pi@example.org", To: []string{"ops@example.org"}, Username: "pi", PasswordFile: pw, CAFile: cert}}
	s, c := testSpool(t)
	err := s.send(context.Background(), r, sample())
	if err == nil || !strings.Contains(err.Error(), "AUTH") || !strings.Contains(err.Error(), "535") {
		t.Fatalf("send with a wrong password: %v", err)
	}
	// Mending the password file mends the delivery at the next retry.
	os.WriteFile(pw, []byte("s3cret\n"), 0o600)
	c.t = c.t.Add(time.Hour)
	if k, err := s.flush(context.Background(), []Receiver{r}); k != 1 || err != nil {
		t.Fatalf("flush after the password was fixed: %d, %v", k, err)
	}
	if ms := mails(t, maildir); len(ms) != 1 || ms[0].Header.Get("X-Mailfrom") != "pi@example.org" {
		t.Fatalf("maildir holds %d mails, want 1", len(ms))
	}
}

// A relay on loopback without TLS takes the mail with insecure: true, and
// only then.
func TestEmailInsecureRelay(t *testing.T) {
	addr, maildir := cliServer(t)
	r := Receiver{Name: "relay", Email: &Email{SMTP: addr, From: "pi@example.org", To: []string{"ops@example.org"}}}
	s, _ := testSpool(t)
	err := s.send(context.Background(), r, sample())
	if err == nil || !strings.Contains(err.Error(), "offers no STARTTLS") || !strings.Contains(err.Error(), "refused, not retried") {
		t.Fatalf("send in clear without insecure: %v", err)
	}
	if len(mails(t, maildir)) != 0 {
		t.Fatal("a mail went in clear without insecure")
	}
	// Setting insecure changes the receiver's target: the refusal is tried again.
	r.Email.Insecure = true
	if k, err := s.flush(context.Background(), []Receiver{r}); k != 1 || err != nil {
		t.Fatalf("flush with insecure: %d, %v", k, err)
	}
	if ms := mails(t, maildir); len(ms) != 1 {
		t.Fatalf("maildir holds %d mails, want 1", len(ms))
	}
}

// A line break in a rule's name or summary cannot add a header.
func TestMessageHeaderInjection(t *testing.T) {
	n := sample()
	n.Summary = "down\r\nBcc: everyone@example.org"
	n.Rule = "x\nX-Evil: 1"
	b, err := message(&Email{From: "pi@example.org", To: []string{"ops@example.org"}}, n, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	m, err := mail.ReadMessage(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.Get("Bcc") != "" || m.Header.Get("X-Evil") != "" || m.Header.Get("Subject") != "down  Bcc: everyone@example.org" {
		t.Errorf("headers %v", m.Header)
	}
}
