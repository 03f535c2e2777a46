package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// decodeJSON reads one JSON value with numbers kept as text, so integers
// above 2^53 (byte counts) survive and a value's kind can be checked before
// it is used.
func decodeJSON(data []byte, what string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonError(what, data, err)
	}
	return v, nil
}

// decodeJSONAt is decodeJSON that also says how many bytes the value took.
func decodeJSONAt(data []byte, what string) (any, int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, 0, jsonError(what, data, err)
	}
	return v, int(dec.InputOffset()), nil
}

// jsonError turns a decoder error into one line that says where the input
// went wrong, in terms a user who hand-trimmed a file understands.
func jsonError(what string, data []byte, err error) error {
	if errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%s: empty input", what)
	}
	return jsonErrorAt(what, int64(len(data)), err)
}

// jsonErrorAt is jsonError for input read as a stream of size bytes.
func jsonErrorAt(what string, size int64, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("%s: truncated: the input ends inside the JSON", what)
	case errors.As(err, &syn):
		if syn.Offset >= size {
			return fmt.Errorf("%s: truncated: the input ends inside the JSON", what)
		}
		return fmt.Errorf("%s: invalid JSON at byte %d: %v", what, syn.Offset, syn)
	}
	return fmt.Errorf("%s: invalid JSON: %v", what, err)
}

// errSink keeps the first error met while walking a decoded document, so
// the converters read straight through and check once at the end.
type errSink struct {
	what string
	err  error
}

func (e *errSink) failf(path, format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf("%s: %s: %s", e.what, path, clip(fmt.Sprintf(format, args...)))
	}
}

// val is one place in a decoded JSON document; reading a missing value
// gives the zero value, reading one of the wrong kind records an error
// naming its path ("jobs[2].read.iops: not a number").
type val struct {
	v    any
	ok   bool
	path string
	e    *errSink
}

func root(v any, e *errSink) val { return val{v: v, ok: true, path: "", e: e} }

func (x val) key(k string) val {
	path := x.path + "[" + strconv.Quote(k) + "]"
	switch {
	case !isIdent(k):
	case x.path == "":
		path = k
	default:
		path = x.path + "." + k
	}
	out := val{path: path, e: x.e}
	if m, ok := x.v.(map[string]any); ok {
		out.v, out.ok = m[k]
	}
	return out
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// has is true when the value is present and not null.
func (x val) has() bool { return x.ok && x.v != nil }

func (x val) where() string {
	if x.path == "" {
		return "top level"
	}
	return x.path
}

// need records an error when the value is absent.
func (x val) need() val {
	if !x.has() {
		x.e.failf(x.where(), "missing")
	}
	return x
}

func (x val) isObject() bool {
	_, ok := x.v.(map[string]any)
	return ok
}

// object is true for an object; anything else but absence is an error.
func (x val) object() bool {
	if !x.has() {
		return false
	}
	if !x.isObject() {
		x.e.failf(x.where(), "not an object")
		return false
	}
	return true
}

func (x val) keys() []string {
	m, _ := x.v.(map[string]any)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func (x val) list() []val {
	if !x.has() {
		return nil
	}
	a, ok := x.v.([]any)
	if !ok {
		x.e.failf(x.where(), "not an array")
		return nil
	}
	out := make([]val, len(a))
	for i, v := range a {
		out[i] = val{v: v, ok: true, path: fmt.Sprintf("%s[%d]", x.path, i), e: x.e}
	}
	return out
}

func (x val) str() string {
	if !x.has() {
		return ""
	}
	s, ok := x.v.(string)
	if !ok {
		x.e.failf(x.where(), "not a string")
	}
	return s
}

// f64 reads a finite number.
func (x val) f64() float64 {
	if !x.has() {
		return 0
	}
	n, ok := x.v.(json.Number)
	if !ok {
		x.e.failf(x.where(), "not a number")
		return 0
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		x.e.failf(x.where(), "%s is out of range", short(string(n)))
		return 0
	}
	return f
}

// i64 reads an integer; iperf3 and fio print some counts as 1.5e+09 style
// floats, which are accepted when whole.
func (x val) i64() int64 {
	if !x.has() {
		return 0
	}
	n, ok := x.v.(json.Number)
	if !ok {
		x.e.failf(x.where(), "not a number")
		return 0
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		x.e.failf(x.where(), "%s is not a whole number in range", short(string(n)))
		return 0
	}
	return int64(f)
}

// count reads a non-negative integer.
func (x val) count() int64 {
	n := x.i64()
	if n < 0 {
		x.e.failf(x.where(), "%d is negative", n)
		return 0
	}
	return n
}

// countPtr is count for figures the result keeps as "absent = not
// reported".
func (x val) countPtr() *int64 {
	if !x.has() {
		return nil
	}
	n := x.count()
	return &n
}

func (x val) f64Ptr() *float64 {
	if !x.has() {
		return nil
	}
	f := x.f64()
	return &f
}

// flag reads iperf3's and fio's booleans, which are true/false or 0/1.
func (x val) flag() bool {
	if !x.has() {
		return false
	}
	switch v := x.v.(type) {
	case bool:
		return v
	case json.Number:
		return x.f64() != 0
	}
	x.e.failf(x.where(), "not a boolean")
	return false
}

// maxSeconds bounds durations so that nanoseconds fit in an int64.
const maxSeconds = 9e9

// secondsNs converts seconds to nanoseconds, refusing values that cannot
// be a duration.
func (x val) secondsNs() int64 {
	return x.scaledNs(1e9)
}

// scaledNs converts a number in some unit to nanoseconds.
func (x val) scaledNs(nsPerUnit float64) int64 {
	f := x.f64()
	ns := f * nsPerUnit
	if ns < 0 || ns > maxSeconds*1e9 {
		x.e.failf(x.where(), "%v is not a possible duration", f)
		return 0
	}
	return int64(math.Round(ns))
}

// plausible bounds the times a measurement can carry, so that a garbled
// timestamp is caught rather than turned into the year 50000.
func plausible(t time.Time) bool {
	return t.Year() >= 1990 && t.Year() < 2200
}

// small reads a count that the result keeps in an int, which is 32 bits
// on the ARM boards thruput runs on.
func (x val) small() int {
	n := x.count()
	if n > math.MaxInt32 {
		x.e.failf(x.where(), "%d is too large", n)
		return 0
	}
	return int(n)
}

// i64Ptr is i64 for figures that may be negative (iperf3 counts datagrams
// that arrive out of order as lost, then takes them back).
func (x val) i64Ptr() *int64 {
	if !x.has() {
		return nil
	}
	n := x.i64()
	return &n
}

// maxDepth bounds the nesting decodeJSONDup follows, as encoding/json does.
const maxDepth = 10000

// decodeJSONDup is decodeJSON for iperf3 3.7 to 3.10, whose --bidir
// output repeats keys in one object (esnet/iperf#952, fixed in 3.11 by
// naming the reverse channel's sums *_bidir_reverse): the second "sum",
// "sum_sent" or "sum_received" of an object is the reverse channel's and
// is kept under the name 3.11 gives it, where a decoder into a map would
// keep the last and lose the forward one.
func decodeJSONDup(data []byte, what string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeDup(dec, 0)
	if err != nil {
		if errors.Is(err, errTooDeep) {
			return nil, fmt.Errorf("%s: %v", what, err)
		}
		return nil, jsonError(what, data, err)
	}
	return v, nil
}

var errTooDeep = fmt.Errorf("nested more than %d deep", maxDepth)

func decodeDup(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		m := map[string]any{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := decodeDup(dec, depth+1)
			if err != nil {
				return nil, err
			}
			if _, dup := m[k]; dup && (k == "sum" || k == "sum_sent" || k == "sum_received") {
				k += "_bidir_reverse"
			}
			m[k] = v
		}
		_, err := dec.Token()
		return m, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeDup(dec, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return t, nil
}
