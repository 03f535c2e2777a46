// Package iperf3 speaks iperf3's wire protocol, both ways: a client that
// runs tests against stock iperf3 servers and a server that stock iperf3
// clients can use. On top of the protocol it keeps thruput's own promises:
// every stream on its own goroutine with one reused buffer, and a server
// that bounds and times every read from a client it does not trust.
//
// The protocol: a TCP control connection starts with a 37-byte cookie; the
// server then drives the test with single state bytes, and both sides
// exchange JSON (parameters, then results) framed by a 4-byte big-endian
// length. Data streams connect to the same port and repeat the cookie (TCP)
// or say hello in one datagram (UDP).
package iperf3

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"time"
)

// DefaultPort is iperf3's.
const DefaultPort = 5201

// State bytes on the control connection.
const (
	stateTestStart       = 1
	stateTestRunning     = 2
	stateTestEnd         = 4
	stateParamExchange   = 9
	stateCreateStreams   = 10
	stateServerTerminate = 11
	stateClientTerminate = 12
	stateExchangeResults = 13
	stateDisplayResults  = 14
	stateIperfDone       = 16
	stateAccessDenied    = -1
	stateServerError     = -2
)

// CookieSize is the cookie's length on the wire: 36 characters and a NUL.
const CookieSize = 37

// Limits on what a peer may send. iperf3 3.18 caps parameters at 8 KiB;
// results carry one small object per stream (128 streams at most) unless a
// server adds its own output, which is why the client allows more.
const (
	maxParamsSize       = 8 << 10
	maxResultsSize      = 1 << 20
	maxPeerResultsSize  = 16 << 20
	maxStreams          = 128
	maxBlockSizeTCP     = 1 << 20
	maxBlockSizeUDP     = 65507
	minBlockSizeUDP     = 16
	maxWindow           = 512 << 20
	maxMSS              = 32767
	maxOmitSeconds      = 600
	maxDurationSeconds  = 86400
	defaultTCPBlockSize = 128 << 10
	defaultUDPBlockSize = 1460
	// DefaultUDPBitrate is iperf3's cap for UDP when -b is not given.
	DefaultUDPBitrate  = 1000000
	defaultPacingTimer = 1000
)

// iperf3's error numbers (i_errno) that a server sends with SERVER_ERROR
// and a client turns back into a message.
const (
	ieDuration      = 5
	ieNumStreams    = 6
	ieBlockSize     = 7
	ieBufSize       = 8
	ieMSS           = 10
	ieOmit          = 12
	ieUDPBlockSize  = 20
	ieReverseBidir  = 25
	ieTotalRate     = 27
	ieRecvCookie    = 106
	ieCtrlClose     = 109
	ieMessage       = 110
	ieRecvParams    = 114
	ieRecvResults   = 117
	ieClientTerm    = 119
	ieAccessDenied  = 121
	ieAuthTest      = 142
	ieStreamAccept  = 204
	ieNoData        = 144
	ieMaxDuration   = 37
	ieServerTimeout = 160
	ieBurst         = 15
	ieNoSCTP        = 18
	ieBadTOS        = 21
	ieSetTOS        = 125
	ieSetCOS        = 126
	ieSetFlow       = 127
	ieProtocol      = 131
	ieSetCongestion = 134
	ieSetPacing     = 140
	ieBindDev       = 143
	ieSetDontFrag   = 145
	ieAffinity      = 132
)

var errnoText = map[int32]string{
	ieDuration:      "test duration too long",
	ieNumStreams:    "number of parallel streams too large",
	ieBlockSize:     "block size too large",
	ieBufSize:       "socket buffer size too large",
	ieMSS:           "TCP MSS too large",
	ieOmit:          "bogus omit value",
	ieUDPBlockSize:  "block size invalid for UDP",
	ieReverseBidir:  "cannot be both reverse and bidirectional",
	ieTotalRate:     "total required bandwidth is larger than server limit",
	ieRecvCookie:    "unable to receive cookie",
	ieCtrlClose:     "control socket has closed unexpectedly",
	ieMessage:       "received an unknown control message",
	ieRecvParams:    "unable to receive parameters from client",
	ieRecvResults:   "unable to receive results",
	ieClientTerm:    "the client has terminated",
	ieAccessDenied:  "the server is busy running a test",
	ieAuthTest:      "test authorization failed",
	ieStreamAccept:  "unable to accept stream connection",
	ieNoData:        "no data received",
	ieMaxDuration:   "test duration exceeds the server's maximum",
	ieServerTimeout: "test duration expired",
	ieBurst:         "invalid burst count (maximum = 1000)",
	ieNoSCTP:        "no SCTP support available",
	ieBadTOS:        "bad TOS value (must be between 0 and 255 inclusive)",
	ieSetTOS:        "unable to set IP TOS",
	ieSetCOS:        "unable to set IPv6 traffic class",
	ieSetFlow:       "unable to set IPv6 flow label",
	ieProtocol:      "protocol does not exist",
	ieSetCongestion: "unable to set TCP_CONGESTION: Supplied congestion control algorithm not supported on this host",
	ieSetPacing:     "unable to set socket pacing",
	ieBindDev:       "Unable to bind-to-device (check perror, maybe permissions?)",
	ieSetDontFrag:   "unable to set IP Do-Not-Fragment flag",
	ieAffinity:      "unable to set CPU affinity",
}

// PeerError is an error the other end reported with SERVER_ERROR.
type PeerError struct {
	Code  int32 // iperf3's i_errno
	Errno int32 // the server's errno, 0 if none
}

func (e *PeerError) Error() string {
	msg, ok := errnoText[e.Code]
	if !ok {
		msg = "error " + strconv.Itoa(int(e.Code))
	}
	if e.Errno != 0 {
		return fmt.Sprintf("server error: %s (errno %d)", msg, e.Errno)
	}
	return "server error: " + msg
}

// ErrBusy is the server's answer while it runs another client's test.
var ErrBusy = errors.New("the server is busy running a test; try again later")

// newCookie makes a cookie as iperf3 does: 36 characters of a-z2-7 and a NUL.
func newCookie() []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	b := make([]byte, CookieSize)
	_, _ = rand.Read(b[:CookieSize-1])
	for i := range CookieSize - 1 {
		b[i] = alphabet[b[i]%32]
	}
	b[CookieSize-1] = 0
	return b
}

// readFull reads len(b) bytes with a deadline for the whole read: a client
// that sends less than it promised cannot hold the server (CVE-2023-7250).
func readFull(c net.Conn, b []byte, timeout time.Duration) error {
	if err := c.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	_, err := io.ReadFull(c, b)
	return err
}

func writeState(c net.Conn, s int8, timeout time.Duration) error {
	if err := c.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	_, err := c.Write([]byte{byte(s)})
	return err
}

// readState reads one state byte within timeout (0 = wait for ever).
func readState(c net.Conn, timeout time.Duration) (int8, error) {
	var dl time.Time
	if timeout > 0 {
		dl = time.Now().Add(timeout)
	}
	if err := c.SetReadDeadline(dl); err != nil {
		return 0, err
	}
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		return 0, err
	}
	return int8(b[0]), nil
}

// sendJSON writes v as a length-prefixed JSON message.
func sendJSON(c net.Conn, v any, timeout time.Duration) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	msg := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(msg, uint32(len(body)))
	copy(msg[4:], body)
	if err := c.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	_, err = c.Write(msg)
	return err
}

// ErrTooLarge is a JSON message whose length prefix exceeds the limit; the
// body is never read or allocated (CVE-2023-38403 wrapped such a length).
var ErrTooLarge = errors.New("message too large")

// recvJSON reads one length-prefixed JSON message of at most limit bytes.
func recvJSON(c net.Conn, limit int, timeout time.Duration) ([]byte, error) {
	if err := c.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return nil, err
	}
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 || uint64(n) > uint64(limit) {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, n, limit)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c, body); err != nil {
		return nil, err
	}
	return body, nil
}

// object decodes a JSON object keeping numbers exact, so that wrong types
// are refused field by field instead of crashing a decoder or being
// silently zeroed (CVE-2024-53580 crashed iperf3 on wrong types).
type object map[string]json.RawMessage

func decodeObject(b []byte) (object, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var o object
	if err := d.Decode(&o); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if o == nil {
		return nil, errors.New("not a JSON object")
	}
	if d.More() {
		return nil, errors.New("trailing data after the JSON object")
	}
	return o, nil
}

// int reads key as an integer in [lo, hi]; absent keys leave *dst alone.
// iperf3 3.12 prints -1 as 2^64-1 in some fields, so that reads as -1.
func (o object) int(key string, lo, hi int64, dst *int64) error {
	raw, ok := o[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	v, err := parseInt(raw)
	if err != nil {
		return fmt.Errorf("%q: %w", key, err)
	}
	if v < lo || v > hi {
		return fmt.Errorf("%q: %d is outside %d..%d", key, v, lo, hi)
	}
	*dst = v
	return nil
}

func parseInt(raw json.RawMessage) (int64, error) {
	s := string(raw)
	if len(s) == 0 || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, fmt.Errorf("want a number, got %.20s", s)
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		if u == math.MaxUint64 {
			return -1, nil
		}
		return 0, fmt.Errorf("%s is too large", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return 0, fmt.Errorf("want an integer, got %.20s", s)
	}
	return int64(f), nil
}

func (o object) float(key string, dst *float64) error {
	raw, ok := o[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return fmt.Errorf("%q: want a number", key)
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%q: want a number", key)
	}
	*dst = f
	return nil
}

// flag reads key as iperf3 writes flags: true, or a number where non-zero
// means set (udp_counters_64bit, get_server_output).
func (o object) flag(key string, dst *bool) error {
	raw, ok := o[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	switch string(raw) {
	case "true":
		*dst = true
		return nil
	case "false":
		*dst = false
		return nil
	}
	v, err := parseInt(raw)
	if err != nil {
		return fmt.Errorf("%q: want true, false or a number", key)
	}
	*dst = v != 0
	return nil
}

func (o object) str(key string, max int, dst *string) error {
	raw, ok := o[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("%q: want a string", key)
	}
	if len(s) > max {
		return fmt.Errorf("%q: longer than %d bytes", key, max)
	}
	*dst = s
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
