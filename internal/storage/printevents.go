package storage

import (
	"context"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/operator"
	"github.com/platen-print/platen/ent/printevent"
	"github.com/platen-print/platen/internal/prints"
)

// record adds the event kind (with its detail and operator, when any) to
// the history of each print, in tx.
func record(ctx context.Context, tx *Tx, kind string, detail *string, operatorID *int, printIDs ...string) error {
	if len(printIDs) == 0 {
		return nil
	}
	builders := make([]*ent.PrintEventCreate, len(printIDs))
	for i, id := range printIDs {
		builders[i] = tx.PrintEvent.Create().SetPrintID(id).SetKind(kind).SetNillableDetail(detail).SetNillableOperatorID(operatorID)
	}
	return tx.PrintEvent.CreateBulk(builders...).Exec(ctx)
}

// history reads a print's events, oldest first, with the operators' e-mails.
func (s *Prints) history(ctx context.Context, c *ent.Client, printID string) ([]prints.Event, error) {
	rows, err := c.PrintEvent.Query().Where(printevent.PrintID(printID)).
		Order(ent.Asc(printevent.FieldCreatedAt), ent.Asc(printevent.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	emails, err := operatorEmails(ctx, c, rows)
	if err != nil {
		return nil, err
	}
	out := make([]prints.Event, len(rows))
	for i, r := range rows {
		out[i] = prints.Event{Kind: r.Kind, At: r.CreatedAt.UTC(), Detail: r.Detail}
		if r.OperatorID != nil {
			email := emails[*r.OperatorID]
			out[i].OperatorEmail = &email
		}
	}
	return out, nil
}

// operatorEmails maps the operators of rows to their e-mails.
func operatorEmails(ctx context.Context, c *ent.Client, rows []*ent.PrintEvent) (map[int]string, error) {
	var ids []int
	for _, r := range rows {
		if r.OperatorID != nil {
			ids = append(ids, *r.OperatorID)
		}
	}
	emails := map[int]string{}
	if len(ids) == 0 {
		return emails, nil
	}
	ops, err := c.Operator.Query().Where(operator.IDIn(ids...)).Select(operator.FieldID, operator.FieldEmail).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range ops {
		emails[o.ID] = o.Email
	}
	return emails, nil
}
