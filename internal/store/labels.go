package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"unicode/utf8"

	"github.com/thruput/thruput/internal/result"
)

// Labeler is a store whose runs' labels can be changed after they were
// saved: a run tagged wrongly, or one a later finding explains.
type Labeler interface {
	// Label sets the labels of set and removes the keys of remove on the
	// run an id or prefix names, in its document and its columns at
	// once, and returns the run's id and labels as they now are.
	Label(idOrPrefix string, set map[string]string, remove []string) (string, map[string]string, error)
}

var _ Labeler = (*DB)(nil)

// ParseLabelEdits reads label edits as `results label` and serve take
// them: key=value sets the key, key= removes it. A key given twice is an
// error, as with --label.
func ParseLabelEdits(args []string) (set map[string]string, remove []string, err error) {
	set = map[string]string{}
	seen := map[string]bool{}
	for _, arg := range args {
		if !utf8.ValidString(arg) {
			return nil, nil, fmt.Errorf("label %q is not UTF-8", arg)
		}
		k, v, err := result.ParseLabel(arg)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (key= removes the key)", err)
		}
		if seen[k] {
			return nil, nil, fmt.Errorf("label %q given twice", k)
		}
		seen[k] = true
		if v == "" {
			remove = append(remove, k)
		} else {
			set[k] = v
		}
	}
	if len(seen) == 0 {
		return nil, nil, errors.New("no label given: key=value sets one, key= removes one")
	}
	return set, remove, nil
}

// Label is Labeler's: the document is read, changed and written back in
// one transaction, its row locked on PostgreSQL (SQLite's write
// transaction locks the file), so two edits at once lose neither.
func (s *DB) Label(idOrPrefix string, set map[string]string, remove []string) (string, map[string]string, error) {
	if len(set) == 0 && len(remove) == 0 {
		return "", nil, errors.New("label: nothing to set or remove")
	}
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", nil, fmt.Errorf("label: %w", err)
	}
	defer tx.Rollback()
	id, err := s.resolve(ctx, tx, idOrPrefix)
	if err != nil {
		return "", nil, err
	}
	q := `SELECT json FROM documents WHERE run_id = ?`
	if s.dialect == PostgreSQL {
		q += ` FOR UPDATE`
	}
	var js []byte
	if err := tx.QueryRowContext(ctx, s.sql(q), id).Scan(&js); err != nil {
		return "", nil, fmt.Errorf("label run %s: %w", id, err)
	}
	doc, err := decode(id, js)
	if err != nil {
		return "", nil, err
	}
	labels := maps.Clone(doc.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	for _, k := range remove {
		delete(labels, k)
	}
	maps.Copy(labels, set)
	doc.Labels = labels
	if len(labels) == 0 {
		doc.Labels = nil
	}
	r, err := prepare(doc)
	if err != nil {
		return "", nil, err
	}
	if _, err := tx.ExecContext(ctx, s.sql(`UPDATE documents SET json = ? WHERE run_id = ?`), string(r.json), id); err != nil {
		return "", nil, fmt.Errorf("label run %s: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, s.sql(`DELETE FROM labels WHERE run_id = ?`), id); err != nil {
		return "", nil, fmt.Errorf("label run %s: %w", id, err)
	}
	for _, l := range r.Labels {
		if _, err := tx.ExecContext(ctx, s.sql(`INSERT INTO labels (run_id, key, value) VALUES (?, ?, ?)`), id, l[0], l[1]); err != nil {
			return "", nil, fmt.Errorf("label run %s: %w", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return "", nil, fmt.Errorf("label run %s: %w", id, err)
	}
	return id, doc.Labels, nil
}
