package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/thruput/thruput/internal/result"
)

// minPrefix is the shortest id prefix accepted: shorter ones match by
// accident more often than on purpose.
const minPrefix = 4

// row is what Save writes: the columns derived from a document, the
// document's JSON and its point's.
type row struct {
	id, method, host, status string
	startedAt                int64
	Columns
	json, point []byte
}

// Columns are the query columns of a document besides its id, method,
// host, status and start; a backend's migration derives them for runs
// stored before it had them.
type Columns struct {
	Target, FSType    string
	Summary, Imported string
	// DeviceIDs are the hardware ids of what the run measured
	// (result.Document.DeviceIDs), joined by spaces, which ids cannot hold.
	DeviceIDs string
	Labels    [][2]string
	// Series is the run's series (result.Document.SeriesKey), whose
	// target, direction and interface are columns: the newest runs of
	// each series are found without reading a document.
	Series result.SeriesKey
}

// derive computes the query columns of a document.
func derive(doc *result.Document) row {
	return row{
		id:        doc.ID,
		method:    string(doc.Method),
		host:      doc.Host.Hostname,
		status:    doc.Status,
		startedAt: unixNano(doc.StartedAt),
		Columns:   DeriveColumns(doc),
	}
}

// DeriveColumns computes the Columns of a document.
func DeriveColumns(doc *result.Document) Columns {
	// Every target of a run over several, each list naming them all.
	c := Columns{Summary: doc.Summary(), Target: doc.Subject(), DeviceIDs: strings.Join(doc.DeviceIDs(), " "), Series: doc.SeriesKey()}
	if len(doc.Targets) > 0 {
		types := make([]string, len(doc.Targets))
		for i, t := range doc.Targets {
			types[i] = t.FSType
		}
		c.FSType = strings.Join(types, ", ")
	}
	if doc.Imported != nil {
		c.Imported = doc.Imported.Tool
	}
	for k, v := range doc.Labels {
		c.Labels = append(c.Labels, [2]string{k, v})
	}
	return c
}

// unixNano stores the zero time as 0 so that a document without a start
// survives the round trip as one without a start.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// prepare checks and encodes a document for saving, outside any
// transaction so that the write lock is held only for the inserts.
func prepare(doc *result.Document) (row, error) {
	if doc == nil {
		return row{}, errors.New("save: nil document")
	}
	if doc.ID == "" {
		return row{}, errors.New("save: the document has no id")
	}
	if doc.Method == "" {
		return row{}, fmt.Errorf("save run %s: the document has no method", doc.ID)
	}
	// Nanoseconds since 1970 in an int64 reach from 1678 to 2262.
	if y := doc.StartedAt.Year(); !doc.StartedAt.IsZero() && (y < 1678 || y > 2261) {
		return row{}, fmt.Errorf("save run %s: start time %s is out of range", doc.ID, doc.StartedAt.Format(time.RFC3339))
	}
	for k, v := range doc.Labels {
		// The rules of --label; List relies on there being no control
		// characters.
		if k2, v2, err := result.ParseLabel(k + "=" + v); err != nil || k2 != k || v2 != v {
			if err == nil {
				err = fmt.Errorf("label key %q holds '='", k)
			}
			return row{}, fmt.Errorf("save run %s: %w", doc.ID, err)
		}
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return row{}, fmt.Errorf("save run %s: %w", doc.ID, err)
	}
	r := derive(doc)
	r.json = js
	if r.point, err = encodePoint(doc); err != nil {
		return row{}, fmt.Errorf("save run %s: %w", doc.ID, err)
	}
	return r, nil
}

// encodePoint is the JSON of the document's point that the store keeps
// beside it (the point column).
func encodePoint(doc *result.Document) ([]byte, error) {
	p := doc.Point()
	return json.Marshal(&p)
}

// inserter holds the statements of one save transaction.
type inserter struct {
	run, doc, point, label *sql.Stmt
}

func (s *DB) newInserter(ctx context.Context, tx *sql.Tx) (*inserter, error) {
	var in inserter
	var err error
	if in.run, err = tx.PrepareContext(ctx, s.sql(`INSERT INTO runs (id, method, host, started_at, status, target, fs_type, summary, imported, device_ids,
		series_target, series_direction, series_interface)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`)); err != nil {
		return nil, err
	}
	if in.doc, err = tx.PrepareContext(ctx, s.sql(`INSERT INTO documents (run_id, json) VALUES (?, ?)`)); err != nil {
		in.close()
		return nil, err
	}
	if in.point, err = tx.PrepareContext(ctx, s.sql(`INSERT INTO points (run_id, json) VALUES (?, ?)`)); err != nil {
		in.close()
		return nil, err
	}
	if in.label, err = tx.PrepareContext(ctx, s.sql(`INSERT INTO labels (run_id, key, value) VALUES (?, ?, ?)`)); err != nil {
		in.close()
		return nil, err
	}
	return &in, nil
}

func (in *inserter) close() {
	for _, st := range []*sql.Stmt{in.run, in.doc, in.point, in.label} {
		if st != nil {
			st.Close()
		}
	}
}

// insert writes one run; false when its id is already stored.
func (in *inserter) insert(ctx context.Context, r *row) (bool, error) {
	res, err := in.run.ExecContext(ctx, r.id, r.method, r.host, r.startedAt, r.status, r.Target, r.FSType, r.Summary, r.Imported, r.DeviceIDs,
		r.Series.Target, r.Series.Direction, r.Series.Interface)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	// The JSON goes in as text so that sqlite3's json functions read it.
	if _, err := in.doc.ExecContext(ctx, r.id, string(r.json)); err != nil {
		return false, err
	}
	if _, err := in.point.ExecContext(ctx, r.id, string(r.point)); err != nil {
		return false, err
	}
	for _, l := range r.Labels {
		if _, err := in.label.ExecContext(ctx, r.id, l[0], l[1]); err != nil {
			return false, err
		}
	}
	return true, nil
}

// Save stores one document. An id already stored is ErrExists, wrapped
// with the id.
func (s *DB) Save(doc *result.Document) error {
	saved, _, err := s.SaveAll([]*result.Document{doc})
	if err != nil {
		return err
	}
	if saved == 0 {
		return fmt.Errorf("run %s: %w", doc.ID, ErrExists)
	}
	return nil
}

// SaveAll stores many documents in one transaction (an import of thousands
// takes one commit, not thousands). Documents whose id is already stored,
// or repeated in docs, are skipped and counted; any other failure saves
// nothing.
func (s *DB) SaveAll(docs []*result.Document) (saved, skipped int, err error) {
	return s.SaveEach(func(save func(*result.Document) error) error {
		for _, d := range docs {
			if err := save(d); err != nil {
				return err
			}
		}
		return nil
	})
}

// SaveEach is SaveAll for documents that arrive one at a time: each calls
// save for every document, inside one transaction, so an import holds one
// run in memory rather than a whole export. If each (or a save) returns an
// error, nothing is saved.
func (s *DB) SaveEach(each func(save func(*result.Document) error) error) (saved, skipped int, err error) {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("save: %w", err)
	}
	defer tx.Rollback()
	in, err := s.newInserter(ctx, tx)
	if err != nil {
		return 0, 0, fmt.Errorf("save: %w", err)
	}
	defer in.close()
	err = each(func(d *result.Document) error {
		r, err := prepare(d)
		if err != nil {
			return err
		}
		ok, err := in.insert(ctx, &r)
		if err != nil {
			return fmt.Errorf("save run %s: %w", r.id, err)
		}
		if ok {
			saved++
		} else {
			skipped++
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, fmt.Errorf("save: %w", err)
	}
	return saved, skipped, nil
}

// querier is a *sql.DB or a *sql.Tx: the store has one connection, so code
// running inside a transaction must query through it.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Resolve turns a full id, or a prefix of at least four characters that
// only one run has, into the stored id.
func (s *DB) Resolve(idOrPrefix string) (string, error) {
	return s.resolve(context.Background(), s.db, idOrPrefix)
}

func (s *DB) resolve(ctx context.Context, q querier, p string) (string, error) {
	if p == "" {
		return "", errors.New("empty run id")
	}
	// No id holds anything but text, and PostgreSQL refuses to compare
	// anything else.
	if !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("run %q: %w", p, ErrNotFound)
	}
	var id string
	err := q.QueryRowContext(ctx, s.sql(`SELECT id FROM runs WHERE id = ?`), p).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	if len(p) < minPrefix {
		return "", fmt.Errorf("run %q: %w (give the full id or at least %d characters of it)", p, ErrNotFound, minPrefix)
	}
	where, args := prefixCond("id", p)
	rows, err := q.QueryContext(ctx, s.sql(`SELECT id FROM runs WHERE `+where+` ORDER BY id LIMIT 6`), args...)
	if err != nil {
		return "", err
	}
	var ids []string
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return "", err
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("run %q: %w", p, ErrNotFound)
	case 1:
		return ids[0], nil
	}
	list := strings.Join(ids[:min(len(ids), 5)], ", ")
	if len(ids) > 5 {
		var n int
		if err := q.QueryRowContext(ctx, s.sql(`SELECT count(*) FROM runs WHERE `+where), args...).Scan(&n); err != nil {
			return "", err
		}
		list += fmt.Sprintf(" and %d more", n-5)
	}
	return "", fmt.Errorf("%w %q: it matches %s", ErrAmbiguous, p, list)
}

// sql writes a query of this package (placeholders ?) in the store's
// dialect: PostgreSQL numbers them. Queries hold no '?' in literals.
func (s *DB) sql(q string) string { return s.dialect.sql(q) }

func (d Dialect) sql(q string) string {
	if d != PostgreSQL {
		return q
	}
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// joinLabels aggregates a run's labels into one column, pairs joined by
// control characters that labels cannot hold (prepare checks).
func (s *DB) joinLabels() string {
	if s.dialect == PostgreSQL {
		return `string_agg(key || chr(31) || value, chr(30))`
	}
	return `group_concat(key || char(31) || value, char(30))`
}

// prefixCond matches values of col starting with p as a range, which an
// index answers directly (LIKE would take '_' for a wildcard and ignore
// case).
func prefixCond(col, p string) (string, []any) {
	end, ok := prefixEnd(p)
	switch {
	case !utf8.ValidString(p):
		// Stored text is UTF-8 (PostgreSQL refuses anything else).
		return "FALSE", nil
	case !ok:
		return col + " >= ?", []any{p}
	case !utf8.ValidString(end):
		return "substr(" + col + ", 1, ?) = ?", []any{utf8.RuneCountInString(p), p}
	}
	return "(" + col + " >= ? AND " + col + " < ?)", []any{p, end}
}

// prefixEnd is the least string greater than every string starting with
// p; false when there is none (p is all 0xff bytes).
func prefixEnd(p string) (string, bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// Get returns the stored document with this id or unique prefix.
func (s *DB) Get(idOrPrefix string) (*result.Document, error) {
	return s.get(idOrPrefix, decode)
}

// Brief returns the stored document with this id or unique prefix, less
// what its figures do not need (see brief).
func (s *DB) Brief(idOrPrefix string) (*result.Document, error) {
	return s.get(idOrPrefix, briefDecode)
}

func (s *DB) get(idOrPrefix string, decode func(id string, js []byte) (*result.Document, error)) (*result.Document, error) {
	ctx := context.Background()
	id, err := s.resolve(ctx, s.db, idOrPrefix)
	if err != nil {
		return nil, err
	}
	var js []byte
	err = s.db.QueryRowContext(ctx, s.sql(`SELECT json FROM documents WHERE run_id = ?`), id).Scan(&js)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %q: %w", idOrPrefix, ErrNotFound) // deleted meanwhile
	}
	if err != nil {
		return nil, err
	}
	return decode(id, js)
}

func decode(id string, js []byte) (*result.Document, error) {
	var d result.Document
	if err := json.Unmarshal(js, &d); err != nil {
		return nil, fmt.Errorf("run %s: stored document does not decode: %w", id, err)
	}
	return &d, nil
}

// skipped is a part of a document briefDecode does not keep.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// brief is a document less its machine context, its argv, its network
// intervals, its latency probes' time series and its health samples but
// the suspect reasons: what its figures, series and health marks need. The fields here hide the
// document's own of the same JSON name.
type brief struct {
	result.Document
	Argv        skipped       `json:"argv"`
	System      skipped       `json:"system"`
	Bottlenecks skipped       `json:"bottlenecks"`
	Health      *briefHealth  `json:"health"`
	Net         *briefNet     `json:"net"`
	LoadLatency *briefLatency `json:"latency_under_load"`
}

type briefLatency struct {
	result.LoadLatency
	Series skipped `json:"series"`
}

type briefHealth struct {
	Suspect []result.Suspect `json:"suspect"`
}

type briefNet struct {
	result.Net
	Intervals skipped `json:"intervals"`
}

// briefDecode decodes a stored document as brief, for the migration
// that derives every stored run's point (BackfillSeries) and for Brief:
// decoding the machine context and the samples took most of the time.
func briefDecode(id string, js []byte) (*result.Document, error) {
	var b brief
	if err := json.Unmarshal(js, &b); err != nil {
		return nil, fmt.Errorf("run %s: stored document does not decode: %w", id, err)
	}
	d := b.Document
	if b.Health != nil {
		d.Health = &result.Health{Suspect: b.Health.Suspect}
	}
	if b.Net != nil {
		d.Net = &b.Net.Net
	}
	if b.LoadLatency != nil {
		d.LoadLatency = &b.LoadLatency.LoadLatency
	}
	return &d, nil
}

// Delete removes runs by id or unique prefix, all or none: an id that
// matches nothing, or a prefix that matches several, deletes nothing. It
// returns how many runs were deleted.
func (s *DB) Delete(ids ...string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	seen := make(map[string]bool, len(ids))
	for _, p := range ids {
		id, err := s.resolve(ctx, tx, p)
		if err != nil {
			return 0, err
		}
		seen[id] = true
	}
	n := 0
	for id := range seen {
		// Labels and the document go with the run (ON DELETE CASCADE).
		res, err := tx.ExecContext(ctx, s.sql(`DELETE FROM runs WHERE id = ?`), id)
		if err != nil {
			return 0, err
		}
		k, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		n += int(k)
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return n, nil
}

// Filter selects runs; every field set must match.
type Filter struct {
	// Method is exact ("disk.sweep") or, ending in ".", a prefix ("disk.").
	Method string
	// Host is the exact hostname.
	Host string
	// Labels must all match.
	Labels []LabelQuery
	// Since (inclusive) and Until (exclusive) bound StartedAt; zero is
	// unbounded.
	Since, Until time.Time
	// Status is one of result's Status values; "" is any.
	Status string
	// IDs are full ids or prefixes (a run matches any of them); strings
	// shorter than four characters match only a full id. Empty is any.
	IDs []string
	// Device is a hardware id or its start (result.ParseDeviceID): runs
	// one of whose ids starts with it. Empty is any.
	Device string
	// Limit keeps the newest Limit runs; 0 is no limit.
	Limit int
	// BeforeID, when set, continues a list newest first after the run of
	// that id started at Before: only runs older than it, or as old with
	// a smaller id, are selected, so a page boundary among runs sharing
	// a start time neither loses nor repeats any.
	Before   time.Time
	BeforeID string
}

// LabelQuery matches a run's label: Key=Value, or with Any the key
// whatever its value.
type LabelQuery struct {
	Key, Value string
	Any        bool
}

// ParseLabelQuery reads a --label filter: "key=value", or "key" for runs
// that have the key at all.
func ParseLabelQuery(s string) (LabelQuery, error) {
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return LabelQuery{}, fmt.Errorf("label filter %q is not text (invalid UTF-8 or a NUL byte)", s)
	}
	if !strings.Contains(s, "=") {
		// Validate the key as ParseLabel would, with a placeholder value.
		if _, _, err := result.ParseLabel(s + "="); err != nil {
			return LabelQuery{}, fmt.Errorf("label filter %q: want key or key=value, with a key of 1 to 64 letters, digits, '_', '-' and '.'", s)
		}
		return LabelQuery{Key: s, Any: true}, nil
	}
	k, v, err := result.ParseLabel(s)
	if err != nil {
		return LabelQuery{}, err
	}
	return LabelQuery{Key: k, Value: v}, nil
}

// where renders the filter as SQL over the runs table.
func (f *Filter) where() (string, []any, error) {
	var conds []string
	var args []any
	if m := f.Method; m != "" {
		if strings.HasSuffix(m, ".") {
			c, a := prefixCond("method", m)
			conds = append(conds, c)
			args = append(args, a...)
		} else {
			conds = append(conds, `method = ?`)
			args = append(args, m)
		}
	}
	if f.Host != "" {
		conds = append(conds, `host = ?`)
		args = append(args, f.Host)
	}
	for _, l := range f.Labels {
		if l.Key == "" {
			return "", nil, errors.New("label filter with an empty key")
		}
		if l.Any {
			conds = append(conds, `id IN (SELECT run_id FROM labels WHERE key = ?)`)
			args = append(args, l.Key)
		} else {
			conds = append(conds, `id IN (SELECT run_id FROM labels WHERE key = ? AND value = ?)`)
			args = append(args, l.Key, l.Value)
		}
	}
	if !f.Since.IsZero() {
		conds = append(conds, `started_at >= ?`)
		args = append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		conds = append(conds, `started_at < ?`)
		args = append(args, f.Until.UnixNano())
	}
	if f.Status != "" {
		conds = append(conds, `status = ?`)
		args = append(args, f.Status)
	}
	if f.BeforeID != "" {
		ns := unixNano(f.Before)
		conds = append(conds, `(started_at < ? OR started_at = ? AND id < ?)`)
		args = append(args, ns, ns, f.BeforeID)
	}
	if len(f.IDs) > 0 {
		var or []string
		for _, p := range f.IDs {
			if len(p) < minPrefix && utf8.ValidString(p) {
				or = append(or, `id = ?`)
				args = append(args, p)
				continue
			}
			c, a := prefixCond("id", p)
			or = append(or, c)
			args = append(args, a...)
		}
		conds = append(conds, "("+strings.Join(or, " OR ")+")")
	}
	if f.Device != "" {
		id, err := result.ParseDeviceID(f.Device)
		if err != nil {
			return "", nil, err
		}
		// A word of the space-separated column starting with the id; '_'
		// is LIKE's wildcard, and ids hold neither '%' nor '\'.
		conds = append(conds, `(' ' || device_ids) LIKE ? ESCAPE '\'`)
		args = append(args, "% "+strings.ReplaceAll(id, "_", `\_`)+"%")
	}
	if f.Limit < 0 {
		return "", nil, fmt.Errorf("negative limit %d", f.Limit)
	}
	if len(conds) == 0 {
		return "TRUE", nil, nil
	}
	return strings.Join(conds, " AND "), args, nil
}

// selectIDs is the subquery of the runs a filter selects, newest first
// and limited when it is.
func (f *Filter) selectIDs() (string, []any, error) {
	w, args, err := f.where()
	if err != nil {
		return "", nil, err
	}
	q := `SELECT id FROM runs WHERE ` + w
	if f.Limit > 0 {
		q += fmt.Sprintf(` ORDER BY started_at DESC, id DESC LIMIT %d`, f.Limit)
	}
	return q, args, nil
}

// Entry is one run as a list shows it, read from the columns alone.
type Entry struct {
	ID        string
	Method    result.Method
	Host      string
	Status    string
	StartedAt time.Time
	// Target is every target's path, else the network server or the
	// HTTP URL (result.Document.Subject).
	Target string
	// FSType is every target's filesystem type.
	FSType string
	Labels map[string]string
	// Summary is the headline figure(s), "" when the run has none.
	Summary string
	// Imported is the tool a converted document came from; "" for
	// thruput's own runs.
	Imported string
	// DeviceIDs are the hardware ids of what the run measured, none for
	// a run that recorded none (result.Document.DeviceIDs).
	DeviceIDs []string
}

// List returns the runs the filter selects, newest first, without decoding
// a single document.
func (s *DB) List(f Filter) ([]Entry, error) {
	w, args, err := f.where()
	if err != nil {
		return nil, err
	}
	// Each run's labels come as one column, pairs joined by control
	// characters that labels cannot hold (prepare checks): a second query
	// or a join would cost a row per label, and rows are what a list of
	// thousands pays for.
	q := `SELECT id, method, host, status, started_at, target, fs_type, summary, imported, device_ids,
		(SELECT ` + s.joinLabels() + ` FROM labels WHERE run_id = runs.id)
		FROM runs WHERE ` + w + ` ORDER BY started_at DESC, id DESC`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	rows, err := s.db.QueryContext(context.Background(), s.sql(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var ns int64
		var labels sql.NullString
		var devices string
		if err := rows.Scan(&e.ID, &e.Method, &e.Host, &e.Status, &ns, &e.Target, &e.FSType, &e.Summary, &e.Imported, &devices, &labels); err != nil {
			return nil, err
		}
		if devices != "" {
			e.DeviceIDs = strings.Fields(devices)
		}
		e.StartedAt = fromUnixNano(ns)
		e.Labels = splitLabels(labels)
		out = append(out, e)
	}
	return out, rows.Err()
}

// splitLabels reads the labels joinLabels aggregated; nil for none.
func splitLabels(joined sql.NullString) map[string]string {
	if !joined.Valid {
		return nil
	}
	l := make(map[string]string)
	for pair := range strings.SplitSeq(joined.String, "\x1e") {
		k, v, _ := strings.Cut(pair, "\x1f")
		l[k] = v
	}
	return l
}

// Documents returns the full documents the filter selects, oldest first
// (the newest Limit of them when limited).
func (s *DB) Documents(f Filter) ([]*result.Document, error) {
	sub, args, err := f.selectIDs()
	if err != nil {
		return nil, err
	}
	return s.documentsIn(context.Background(), sub, args)
}

// seriesCols are the columns that tell one series from another, as
// result.Document.SeriesKey does.
const seriesCols = `host, method, series_target, series_direction, series_interface`

// Latest returns the newest run that ended ok of every series
// (result.SeriesKey) the filter selects, oldest first: the runs whose
// figures a dashboard or Prometheus shows now. A suite tests a server up,
// then down: both are series of their own, so the down test must not hide
// the up one.
func (s *DB) Latest(f Filter) ([]*result.Document, error) {
	w, args, err := f.where()
	if err != nil {
		return nil, err
	}
	sub := `SELECT id FROM (
		SELECT id, row_number() OVER (PARTITION BY ` + seriesCols + ` ORDER BY started_at DESC, id DESC) AS n
		FROM runs WHERE status = 'ok' AND ` + w + `) latest WHERE n = 1`
	return s.documentsIn(context.Background(), sub, args)
}

// Recent returns the newest n runs that ended ok of every series
// (result.SeriesKey, as Latest tells them apart) the filter selects, as
// points, oldest first: the runs an alert rule judges, read from the runs
// table alone. The series are those with a run in the liveWindow before
// the newest run the filter selects; one that stopped before is not a
// series being watched.
func (s *DB) Recent(f Filter, n int) ([]result.Point, error) {
	if n < 1 {
		return nil, fmt.Errorf("recent runs: n = %d, want 1 or more", n)
	}
	// Labels are checked run by run (the labels table's key is the run
	// and the key), for the few runs the window holds, rather than by
	// listing every run that has the label.
	labels := f.Labels
	f.Limit, f.Labels = 0, nil
	w, args, err := f.where()
	if err != nil {
		return nil, err
	}
	for _, l := range labels {
		if l.Key == "" {
			return nil, errors.New("label filter with an empty key")
		}
		if l.Any {
			w += ` AND EXISTS (SELECT 1 FROM labels WHERE run_id = runs.id AND key = ?)`
			args = append(args, l.Key)
		} else {
			w += ` AND EXISTS (SELECT 1 FROM labels WHERE run_id = runs.id AND key = ? AND value = ?)`
			args = append(args, l.Key, l.Value)
		}
	}
	ctx := context.Background()
	var newest int64
	err = s.db.QueryRowContext(ctx, s.sql(`SELECT started_at FROM runs WHERE status = 'ok' AND `+w+` ORDER BY started_at DESC LIMIT 1`), args...).Scan(&newest)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// The window's runs are found by the index on (method, started_at)
	// or (host, started_at), not by reading every run of the method; a
	// series with fewer than n there is read further back on its own.
	from := newest - int64(liveWindow)
	// The points and labels are read for the runs kept, not for every
	// run of the window.
	cols := `x.id, x.started_at, x.host, x.method, x.series_target, x.series_direction, x.series_interface, p.json,
		(SELECT ` + s.joinLabels() + ` FROM labels WHERE run_id = x.id)`
	rows, err := s.db.QueryContext(ctx, s.sql(`SELECT `+cols+` FROM (SELECT id, started_at, `+seriesCols+`,
		row_number() OVER (PARTITION BY `+seriesCols+` ORDER BY started_at DESC, id DESC) AS n
		FROM runs WHERE status = 'ok' AND started_at >= ? AND `+w+`) x JOIN points p ON p.run_id = x.id WHERE x.n <= ?`), append(append([]any{from}, args...), n)...)
	if err != nil {
		return nil, err
	}
	// A series with fewer than n points here had fewer than n runs in
	// the window (counting them in SQL took a second sort).
	var out []result.Point
	have := map[result.SeriesKey]int{}
	for rows.Next() {
		p, err := scanPoint(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, p)
		have[p.Series]++
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	for k, m := range have {
		if m >= n {
			continue
		}
		more, err := s.db.QueryContext(ctx, s.sql(`SELECT `+cols+` FROM (SELECT id, started_at, `+seriesCols+` FROM runs
			WHERE status = 'ok' AND host = ? AND method = ? AND series_target = ? AND series_direction = ? AND series_interface = ? AND started_at < ? AND `+w+`
			ORDER BY started_at DESC, id DESC LIMIT ?) x JOIN points p ON p.run_id = x.id`), append(append([]any{k.Host, string(k.Method), k.Target, k.Direction, k.Interface, from}, args...), n-m)...)
		if err != nil {
			return nil, err
		}
		for more.Next() {
			p, err := scanPoint(more)
			if err != nil {
				more.Close()
				return nil, err
			}
			out = append(out, p)
		}
		if err := more.Close(); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b result.Point) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// scanPoint reads a row of Recent's columns.
func scanPoint(rows *sql.Rows) (result.Point, error) {
	var p result.Point
	var ns int64
	var method string
	var point []byte
	var labels sql.NullString
	if err := rows.Scan(&p.ID, &ns, &p.Series.Host, &method, &p.Series.Target, &p.Series.Direction, &p.Series.Interface, &point, &labels); err != nil {
		return p, err
	}
	if err := json.Unmarshal(point, &p); err != nil {
		return p, fmt.Errorf("run %s: its stored point does not decode: %w", p.ID, err)
	}
	p.Series.Method = result.Method(method)
	p.StartedAt = fromUnixNano(ns)
	p.Labels = splitLabels(labels)
	return p, nil
}

// liveWindow is how recent a series' newest run must be, against the
// newest run a Recent selects, for Recent to take it as a series.
const liveWindow = 30 * 24 * time.Hour

// documentsIn reads the documents of the ids the subquery gives.
func (s *DB) documentsIn(ctx context.Context, sub string, args []any) ([]*result.Document, error) {
	rows, err := s.db.QueryContext(ctx, s.sql(`SELECT r.id, d.json FROM runs r JOIN documents d ON d.run_id = r.id
		WHERE r.id IN (`+sub+`) ORDER BY r.started_at, r.id`), args...)
	if err != nil {
		return nil, err
	}
	type raw struct {
		id string
		js []byte
	}
	var all []raw
	for rows.Next() {
		var r raw
		if err := rows.Scan(&r.id, &r.js); err != nil {
			rows.Close()
			return nil, err
		}
		all = append(all, r)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	// Decoding dominates (SQLite hands over the bytes in a fraction of the
	// time), so it is spread over the CPUs.
	docs := make([]*result.Document, len(all))
	errs := make([]error, len(all))
	workers := min(runtime.GOMAXPROCS(0), (len(all)+63)/64)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(all); i += workers {
				docs[i], errs[i] = decode(all[i].id, all[i].js)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return docs, nil
}
