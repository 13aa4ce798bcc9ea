package storage

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/platen-print/platen/ent"
	"github.com/platen-print/platen/ent/designversion"
	"github.com/platen-print/platen/ent/predicate"
	"github.com/platen-print/platen/internal/apierr"
	"github.com/platen-print/platen/internal/designversions"
	"github.com/platen-print/platen/internal/orders"
)

// Designs is the design-version registry over Ent.
type Designs struct{ db *DB }

// Designs returns the design-version store.
func (db *DB) Designs() *Designs { return &Designs{db: db} }

var _ designversions.Store = (*Designs)(nil)

// RegisterVersion stores v unless its id is taken, then compares.
func (s *Designs) RegisterVersion(ctx context.Context, v *designversions.Version) (*designversions.Version, error) {
	var stored *designversions.Version
	err := s.db.inTx(ctx, func(ctx context.Context, tx *Tx) error {
		if err := registerVersions(ctx, tx, v.TeamID, []*designversions.Version{v}); err != nil {
			return err
		}
		var err error
		if stored, err = getVersion(ctx, tx.Client(), v.TeamID, v.ID); err != nil {
			return err
		}
		if stored.Fingerprint != v.Fingerprint {
			return apierr.Conflict("design_version_id", "%s", designversions.ConflictMessage(v.ID))
		}
		return nil
	})
	return stored, err
}

// registerVersions inserts the versions whose ids the team does not hold
// yet. ON CONFLICT DO NOTHING lets two PostgreSQL transactions register one
// id side by side: the second waits for the first and inserts nothing, and
// the caller compares fingerprints afterwards.
func registerVersions(ctx context.Context, tx *Tx, teamID int, list []*designversions.Version) error {
	now := time.Now().UTC().Truncate(time.Microsecond)
	builders := make([]*ent.DesignVersionCreate, len(list))
	for i, v := range list {
		builders[i] = tx.DesignVersion.Create().SetTeamID(teamID).SetVersionID(v.ID).
			SetTemplateConfig(v.TemplateConfig).SetConfigHash(v.Fingerprint).SetThumbnails(v.Thumbnails).
			SetCreatedAt(now)
	}
	return tx.DesignVersion.CreateBulk(builders...).
		OnConflict(sql.ConflictColumns(designversion.FieldTeamID, designversion.FieldVersionID)).DoNothing().
		Exec(ctx)
}

// registerItemDesigns registers the design versions an order's items
// carry, in the order's transaction, and answers a conflict naming the
// item whose document differs from its version's.
func registerItemDesigns(ctx context.Context, tx *Tx, teamID int, items []orders.Item) error {
	first := map[string]int{} // version id → index of the first item naming it
	var list []*designversions.Version
	for i, it := range items {
		if it.DesignVersionID == nil || it.DesignFingerprint == "" {
			continue
		}
		id := *it.DesignVersionID
		if j, seen := first[id]; seen {
			if items[j].DesignFingerprint != it.DesignFingerprint {
				return itemDesignConflict(i, id)
			}
			continue
		}
		first[id] = i
		list = append(list, &designversions.Version{ID: id, TemplateConfig: it.TemplateConfig,
			Fingerprint: it.DesignFingerprint, Thumbnails: it.Thumbnails})
	}
	if len(list) == 0 {
		return nil
	}
	if err := registerVersions(ctx, tx, teamID, list); err != nil {
		return err
	}
	ids := make([]string, len(list))
	for i, v := range list {
		ids[i] = v.ID
	}
	rows, err := tx.DesignVersion.Query().
		Where(designversion.TeamID(teamID), designversion.VersionIDIn(ids...)).
		Select(designversion.FieldVersionID, designversion.FieldConfigHash).All(ctx)
	if err != nil {
		return err
	}
	for _, row := range rows {
		i := first[row.VersionID]
		if row.ConfigHash != items[i].DesignFingerprint {
			return itemDesignConflict(i, row.VersionID)
		}
	}
	return nil
}

func itemDesignConflict(item int, id string) error {
	return apierr.Conflict(fmt.Sprintf("items[%d].design_version_id", item), "%s", designversions.ConflictMessage(id))
}

// GetVersion returns the team's version.
func (s *Designs) GetVersion(ctx context.Context, teamID int, id string) (*designversions.Version, error) {
	return getVersion(ctx, s.db.read, teamID, id)
}

func getVersion(ctx context.Context, client *ent.Client, teamID int, id string) (*designversions.Version, error) {
	row, err := client.DesignVersion.Query().
		Where(designversion.TeamID(teamID), designversion.VersionID(id)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "design version %q not found", id)
	}
	return versionFromRow(row), nil
}

// ListVersions returns a page of versions, newest first.
func (s *Designs) ListVersions(ctx context.Context, q designversions.Query) ([]*designversions.Version, bool, error) {
	query := s.db.read.DesignVersion.Query().Where(designversion.TeamID(q.TeamID))
	rows, err := query.Where(after[predicate.DesignVersion](q.After, designversion.FieldVersionID)).Order(ent.Desc(designversion.FieldCreatedAt), ent.Desc(designversion.FieldVersionID)).
		Limit(q.PageSize + 1).All(ctx)
	if err != nil {
		return nil, false, err
	}
	page, more := cutPage(rows, q.PageSize, versionFromRow)
	return page, more, nil
}

func versionFromRow(row *ent.DesignVersion) *designversions.Version {
	return &designversions.Version{
		TeamID: row.TeamID, ID: row.VersionID, TemplateConfig: row.TemplateConfig, Fingerprint: row.ConfigHash,
		Thumbnails: row.Thumbnails, CreatedAt: row.CreatedAt.UTC(),
	}
}
