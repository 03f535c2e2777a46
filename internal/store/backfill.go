package store

import (
	"context"
	"database/sql"
)

// backfillPage is how many documents BackfillSeries holds at once.
const backfillPage = 500

// BackfillSeries derives the series columns and the point of every run
// stored before a store kept them: the Go step of the migration that
// added them (SQLite's version 4, PostgreSQL's 3), inside its
// transaction. Documents are read a page at a time and decoded brief,
// which keeps all a point needs.
func BackfillSeries(ctx context.Context, tx *sql.Tx, d Dialect) error {
	upd, err := tx.PrepareContext(ctx, d.sql(`UPDATE runs SET series_target = ?, series_direction = ?, series_interface = ? WHERE id = ?`))
	if err != nil {
		return err
	}
	defer upd.Close()
	ins, err := tx.PrepareContext(ctx, d.sql(`INSERT INTO points (run_id, json) VALUES (?, ?)`))
	if err != nil {
		return err
	}
	defer ins.Close()
	type stored struct {
		id string
		js []byte
	}
	last := ""
	for {
		rows, err := tx.QueryContext(ctx, d.sql(`SELECT run_id, json FROM documents WHERE run_id > ? ORDER BY run_id LIMIT ?`), last, backfillPage)
		if err != nil {
			return err
		}
		var page []stored
		for rows.Next() {
			var r stored
			if err := rows.Scan(&r.id, &r.js); err != nil {
				rows.Close()
				return err
			}
			page = append(page, r)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if len(page) == 0 {
			return nil
		}
		for _, r := range page {
			doc, err := briefDecode(r.id, r.js)
			if err != nil {
				return err
			}
			point, err := encodePoint(doc)
			if err != nil {
				return err
			}
			k := doc.SeriesKey()
			if _, err := upd.ExecContext(ctx, k.Target, k.Direction, k.Interface, r.id); err != nil {
				return err
			}
			if _, err := ins.ExecContext(ctx, r.id, string(point)); err != nil {
				return err
			}
		}
		last = page[len(page)-1].id
	}
}
