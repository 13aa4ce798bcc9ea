package renderjobs

import "slices"

// Where a print's files are stored: every key of a Family A item's files
// begins with ItemKeyPrefix, every key of a Family B print's with
// ShopKeyPrefix; the render job that stores them adds its own id (FileKey,
// SurfaceFileKey).

// ItemKeyPrefix is the key prefix of the files of item itemUID of the
// order orderUID.
func ItemKeyPrefix(orderUID, itemUID string) string { return "orders/" + orderUID + "/" + itemUID }

// ShopKeyPrefix is the key prefix of the files of the shop print printUID
// of the shop order whose reference_number is reference.
func ShopKeyPrefix(reference, printUID string) string { return "shop/" + reference + "/" + printUID }

// ItemPrint is a Family A item's print as stored: the job that owns it and
// the file it has, each nil when none.
type ItemPrint struct {
	OrderUID, ItemUID string
	JobID             *int64
	FileKey           *string
}

// ShopPrint is a Family B print as stored: the job that owns it and the
// files it has.
type ShopPrint struct {
	Reference, PrintUID string
	JobID               *int64
	FileKeys            []string
}

// Cleanup is what a change to prints does to their render jobs and stored
// files: the jobs to cancel and the files to remove, which the change's
// store queues in the change's own transaction, so that they happen
// exactly when it commits. Its methods are the rules of which files go
// when; the zero Cleanup does nothing.
type Cleanup struct {
	// Cancel are render jobs that may not have run yet; running or
	// finished ones are left to their end (a superseded render writes
	// nothing, and removes the files it stored).
	Cancel []int64
	// Delete are keys of stored files.
	Delete []string
	// DeleteUnder are key prefixes whose every file goes: a shop print's
	// job's, whose surfaces are counted nowhere.
	DeleteUnder []string
}

// Empty reports whether c does nothing.
func (c *Cleanup) Empty() bool {
	return len(c.Cancel) == 0 && len(c.Delete) == 0 && len(c.DeleteUnder) == 0
}

// DropItem records that an item's print, as it was, is no longer wanted:
// its job (if pending) is cancelled, its file removed, and so is the file
// its job stores. A run of the job that stored it and then stopped (a
// kill, or a database that refused its outcome) left it recorded nowhere;
// the job's next run, finding the item gone or superseded, stores nothing
// and removes nothing, so the file would stay in the bucket forever.
func (c *Cleanup) DropItem(p ItemPrint) {
	if p.JobID != nil {
		c.Cancel = append(c.Cancel, *p.JobID)
	}
	if p.FileKey != nil {
		c.Delete = append(c.Delete, *p.FileKey)
	}
	c.dropJobFile(p)
}

// ItemFailed records that the job jobID, which owns the item's print,
// failed it: the file the print had goes with it, not left unreferenced,
// and so does whatever an earlier run of the failing job stored before it
// was interrupted.
func (c *Cleanup) ItemFailed(p ItemPrint, jobID int64) {
	if p.FileKey != nil {
		c.Delete = append(c.Delete, *p.FileKey)
	}
	p.JobID = &jobID
	c.dropJobFile(p)
}

// ItemReady records that the item's print now has the file key: the file
// it had before, if another, goes.
func (c *Cleanup) ItemReady(p ItemPrint, key string) {
	if p.FileKey != nil && *p.FileKey != key {
		c.Delete = append(c.Delete, *p.FileKey)
	}
}

// dropJobFile queues the removal of the file p's job stores, unless it is
// p's own file (which the caller removes).
func (c *Cleanup) dropJobFile(p ItemPrint) {
	if p.JobID == nil {
		return
	}
	if key := FileKey(ItemKeyPrefix(p.OrderUID, p.ItemUID), *p.JobID); p.FileKey == nil || *p.FileKey != key {
		c.Delete = append(c.Delete, key)
	}
}

// DropShop records that a shop print, as it was, is no longer wanted (an
// operator failed or cancelled it): its job (if pending) is cancelled, and
// its files go, with whatever its job stored, as DropItem says of an
// item's.
func (c *Cleanup) DropShop(p ShopPrint) {
	if p.JobID != nil {
		c.Cancel = append(c.Cancel, *p.JobID)
	}
	c.Delete = append(c.Delete, p.FileKeys...)
	c.dropShopJobFiles(p)
}

// ShopFailed records that the job jobID, which owns the shop print, failed
// it: its files go, and so do those an earlier run of the failing job
// stored before it was interrupted.
func (c *Cleanup) ShopFailed(p ShopPrint, jobID int64) {
	c.Delete = append(c.Delete, p.FileKeys...)
	p.JobID = &jobID
	c.dropShopJobFiles(p)
}

// ShopReady records that the shop print now has the files keys: those it
// had before go, but for keys it keeps (a job that runs again, its end
// not recorded, writes the same keys, which must stay).
func (c *Cleanup) ShopReady(p ShopPrint, keys []string) {
	for _, k := range p.FileKeys {
		if !slices.Contains(keys, k) {
			c.Delete = append(c.Delete, k)
		}
	}
}

// dropShopJobFiles queues the removal of whatever p's render job stored.
func (c *Cleanup) dropShopJobFiles(p ShopPrint) {
	if p.JobID != nil {
		c.DeleteUnder = append(c.DeleteUnder, JobFilesPrefix(ShopKeyPrefix(p.Reference, p.PrintUID), *p.JobID))
	}
}
