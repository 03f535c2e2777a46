package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"os"
	"strings"
	"time"
)

// email sends n as a plain-text mail. STARTTLS is used when the server
// offers it and required unless Insecure; AUTH PLAIN follows when a
// username is given (net/smtp sends it only over TLS or to localhost).
// A 5xx reply to the envelope or the message is a refusal; anything else
// (no connection, TLS, a 4xx, a failed AUTH the password file may yet
// mend) is retried.
func (s *spool) email(ctx context.Context, e *Email, n Notification) error {
	host, _, _ := net.SplitHostPort(e.SMTP)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", e.SMTP)
	if err != nil {
		return &failure{err: err}
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return &failure{err: fmt.Errorf("smtp %s: %w", e.SMTP, err)}
	}
	defer c.Close()
	if name, err := os.Hostname(); err == nil {
		if err := c.Hello(name); err != nil {
			return smtpFailure(e.SMTP, "HELO", err)
		}
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		cfg := &tls.Config{ServerName: host}
		if e.CAFile != "" {
			if cfg.RootCAs, err = caPool(e.CAFile); err != nil {
				return &failure{err: err}
			}
		}
		if err := c.StartTLS(cfg); err != nil {
			return &failure{err: fmt.Errorf("smtp %s: STARTTLS: %w", e.SMTP, err)}
		}
	} else if !e.Insecure {
		return &failure{permanent: true, err: fmt.Errorf("smtp %s offers no STARTTLS: the mail would go in clear (set insecure: true for a relay on this machine)", e.SMTP)}
	}
	if e.Username != "" {
		pw, err := os.ReadFile(e.PasswordFile)
		if err != nil {
			return &failure{err: err}
		}
		if err := c.Auth(smtp.PlainAuth("", e.Username, strings.TrimRight(string(pw), "\r\n"), host)); err != nil {
			return &failure{err: fmt.Errorf("smtp %s: AUTH: %w", e.SMTP, err)}
		}
	}
	msg, err := message(e, n, time.Now())
	if err != nil {
		return &failure{permanent: true, err: err}
	}
	from, _ := mail.ParseAddress(e.From)
	if err := c.Mail(from.Address); err != nil {
		return smtpFailure(e.SMTP, "MAIL FROM", err)
	}
	for _, to := range e.To {
		a, _ := mail.ParseAddress(to)
		if err := c.Rcpt(a.Address); err != nil {
			return smtpFailure(e.SMTP, "RCPT TO "+a.Address, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return smtpFailure(e.SMTP, "DATA", err)
	}
	if _, err := w.Write(msg); err != nil {
		return smtpFailure(e.SMTP, "DATA", err)
	}
	if err := w.Close(); err != nil {
		return smtpFailure(e.SMTP, "the message", err)
	}
	// The server took the message; a failed QUIT does not undo that.
	c.Quit()
	return nil
}

// smtpFailure is a refusal for a 5xx reply, else a failure to retry.
func smtpFailure(server, step string, err error) error {
	var te *textproto.Error
	return &failure{permanent: errors.As(err, &te) && te.Code >= 500, err: fmt.Errorf("smtp %s: %s: %w", server, step, err)}
}

// message is the mail: the summary as subject, the fields a line each as
// the body. Its Message-ID is the notification's id at the sender's
// domain, so a repeat (see the spool) is the same message to a mail
// client that threads or drops duplicates.
func message(e *Email, n Notification, now time.Time) ([]byte, error) {
	from, err := mail.ParseAddress(e.From)
	if err != nil {
		return nil, err
	}
	var to []string
	for _, t := range e.To {
		a, err := mail.ParseAddress(t)
		if err != nil {
			return nil, err
		}
		to = append(to, a.String())
	}
	domain := "thruput.invalid"
	if _, d, ok := strings.Cut(from.Address, "@"); ok && d != "" {
		domain = d
	}
	var b bytes.Buffer
	hdr := [][2]string{
		{"From", from.String()},
		{"To", strings.Join(to, ", ")},
		{"Subject", mime.QEncoding.Encode("utf-8", strings.Map(noBreak, n.Summary))},
		{"Date", now.Format(time.RFC1123Z)},
		{"Message-ID", "<" + n.ID() + "@" + domain + ">"},
		{"MIME-Version", "1.0"},
		{"Content-Type", "text/plain; charset=utf-8"},
		{"Content-Transfer-Encoding", "quoted-printable"},
		// RFC 3834: a machine wrote it; auto-responders stay quiet.
		{"Auto-Submitted", "auto-generated"},
		{"X-Thruput-Alert", n.Status + " " + n.Rule},
	}
	for _, h := range hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], strings.Map(noBreak, h[1]))
	}
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	body := n.Summary + "\n\n" + text(n.fields())
	if _, err := qp.Write([]byte(strings.ReplaceAll(body, "\n", "\r\n"))); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// noBreak keeps a header on its line: a CR or LF in a rule's name or the
// summary must not start a header of its own.
func noBreak(r rune) rune {
	if r == '\r' || r == '\n' {
		return ' '
	}
	return r
}
