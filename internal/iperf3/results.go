package iperf3

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/thruput/thruput/internal/result"
)

// Results are one side's figures as the two ends exchange them after a
// test: CPU load and, per stream, what that side sent or received.
type Results struct {
	CPUTotal, CPUUser, CPUSystem float64
	// SenderHasRetransmits is 1 when this side sent TCP and counted
	// retransmits, 0 when it could not, -1 when it only received.
	SenderHasRetransmits int64
	Congestion           string
	Streams              []StreamResults
	// ServerOutputText or ServerOutputJSON is a server's own report,
	// sent when the client asked for it (get_server_output).
	ServerOutputText string
	ServerOutputJSON json.RawMessage
	// Unmet is what a thruput server could not do of what the client
	// asked (Params.Unmet), sent as server_unmet whether or not the
	// client asked for the server's output: thruput's own key, which
	// iperf3 clients ignore as they ignore out_of_order.
	Unmet string
}

// StreamResults are one stream's figures from one side.
type StreamResults struct {
	ID int64
	// Bytes sent by a sender, received by a receiver.
	Bytes int64
	// Retransmits is -1 when unknown (a receiver, or UDP).
	Retransmits int64
	// Jitter in seconds, Errors (lost datagrams) and Packets: UDP only.
	Jitter  float64
	Errors  int64
	Packets int64
	// OutOfOrder datagrams (thruput's own key; iperf3 ignores it).
	OutOfOrder int64
	// StartTime and EndTime bound the stream's measured span, seconds.
	StartTime, EndTime float64
}

func (r *Results) wire() map[string]any {
	streams := make([]map[string]any, len(r.Streams))
	for i, s := range r.Streams {
		streams[i] = map[string]any{
			"id":           s.ID,
			"bytes":        s.Bytes,
			"retransmits":  s.Retransmits,
			"jitter":       s.Jitter,
			"errors":       s.Errors,
			"packets":      s.Packets,
			"out_of_order": s.OutOfOrder,
			// The counts above start after the omitted start already;
			// iperf3 3.14+ clients subtract these from them, and without
			// them they subtract their own omitted counts.
			"omitted_errors":  0,
			"omitted_packets": 0,
			"start_time":      s.StartTime,
			"end_time":        s.EndTime,
		}
	}
	m := map[string]any{
		"cpu_util_total":         r.CPUTotal,
		"cpu_util_user":          r.CPUUser,
		"cpu_util_system":        r.CPUSystem,
		"sender_has_retransmits": r.SenderHasRetransmits,
		"streams":                streams,
	}
	if r.Congestion != "" {
		m["congestion_used"] = r.Congestion
	}
	if r.ServerOutputText != "" {
		m["server_output_text"] = r.ServerOutputText
	}
	if r.ServerOutputJSON != nil {
		m["server_output_json"] = r.ServerOutputJSON
	}
	if r.Unmet != "" {
		m["server_unmet"] = r.Unmet
	}
	return m
}

// serverOutput adds this server's report of the test to its results, as
// iperf3's server does for --get-server-output: its JSON when it runs with
// JSON output, else its text.
func (r *Results) serverOutput(n *result.Net, np result.NetParameters, unmet string, asJSON bool) {
	mine := *n
	mine.Parameters = np
	if asJSON {
		b, err := json.Marshal(compatTop(&result.Document{Net: &mine, StartedAt: time.Now()}))
		if err == nil {
			r.ServerOutputJSON = b
		}
		return
	}
	var b strings.Builder
	if unmet != "" {
		// As iperf3 prints its warnings (warning()), first.
		fmt.Fprintf(&b, "warning: %s\n", unmet)
	}
	_ = WriteCompatText(&b, &mine, np.Title)
	r.ServerOutputText = b.String()
}

// maxUnmet bounds the server_unmet a client takes from a server.
const maxUnmet = 4 << 10

// ParseResults decodes a peer's results with the same strictness as the
// parameters: wrong types and impossible values are errors, extra keys
// (server_output_json and the like) are ignored.
func ParseResults(b []byte) (*Results, error) {
	o, err := decodeObject(b)
	if err != nil {
		return nil, fmt.Errorf("results: %v", err)
	}
	r := &Results{}
	if err := firstErr(
		o.float("cpu_util_total", &r.CPUTotal),
		o.float("cpu_util_user", &r.CPUUser),
		o.float("cpu_util_system", &r.CPUSystem),
		o.int("sender_has_retransmits", -1, 1, &r.SenderHasRetransmits),
		o.str("congestion_used", 64, &r.Congestion),
		o.str("server_output_text", maxPeerResultsSize, &r.ServerOutputText),
		o.str("server_unmet", maxUnmet, &r.Unmet),
	); err != nil {
		return nil, fmt.Errorf("results: %v", err)
	}
	// server_unmet is printed on the client's terminal: a server's
	// escape sequences go no further.
	r.Unmet = strings.Map(func(c rune) rune {
		if unicode.IsControl(c) {
			return -1
		}
		return c
	}, r.Unmet)
	if raw, ok := o["server_output_json"]; ok && string(raw) != "null" {
		if _, err := decodeObject(raw); err != nil {
			return nil, fmt.Errorf("results: \"server_output_json\": %v", err)
		}
		r.ServerOutputJSON = raw
	}
	raw, ok := o["streams"]
	if !ok {
		return nil, fmt.Errorf("results: no streams")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("results: \"streams\": want an array")
	}
	if len(list) > 2*maxStreams {
		return nil, fmt.Errorf("results: %d streams, at most %d", len(list), 2*maxStreams)
	}
	for i, el := range list {
		so, err := decodeObject(el)
		if err != nil {
			return nil, fmt.Errorf("results: stream %d: %v", i, err)
		}
		s := StreamResults{Retransmits: -1}
		const big = 1 << 62
		if err := firstErr(
			so.int("id", 1, big, &s.ID),
			so.int("bytes", 0, big, &s.Bytes),
			so.int("retransmits", -1, big, &s.Retransmits),
			so.float("jitter", &s.Jitter),
			so.int("errors", -big, big, &s.Errors),
			so.int("packets", -big, big, &s.Packets),
			so.int("out_of_order", 0, big, &s.OutOfOrder),
			so.float("start_time", &s.StartTime),
			so.float("end_time", &s.EndTime),
		); err != nil {
			return nil, fmt.Errorf("results: stream %d: %v", i, err)
		}
		// iperf3 3.14+ counts datagrams from the start and says how many
		// of them fell in the omitted start, both or neither.
		_, hasErrs := so["omitted_errors"]
		_, hasPkts := so["omitted_packets"]
		if hasErrs != hasPkts {
			return nil, fmt.Errorf("results: stream %d: omitted_errors and omitted_packets come together", i)
		}
		var omErrs, omPkts int64
		if err := firstErr(so.int("omitted_errors", 0, big, &omErrs), so.int("omitted_packets", 0, big, &omPkts)); err != nil {
			return nil, fmt.Errorf("results: stream %d: %v", i, err)
		}
		s.Errors, s.Packets = max(s.Errors-omErrs, 0), max(s.Packets-omPkts, 0)
		if _, ok := so["id"]; !ok {
			return nil, fmt.Errorf("results: stream %d has no id", i)
		}
		r.Streams = append(r.Streams, s)
	}
	return r, nil
}
