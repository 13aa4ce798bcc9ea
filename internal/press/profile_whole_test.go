package press_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/platen-print/platen/internal/iccprofile"
	"github.com/platen-print/platen/internal/platentest"
)

// TestProfileReadWhole: an output profile is read whole at upload: 6 MB
// of random bytes behind FOGRA39's header, or FOGRA39 cut short with its
// size field made to match, is refused naming data and what is wrong;
// real CMYK output profiles (FOGRA39, Ghostscript's) are taken.
func TestProfileReadWhole(t *testing.T) {
	random := make([]byte, 6_000_000)
	rng := rand.New(rand.NewPCG(33, 1))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	copy(random, iccprofile.FOGRA39[:128])
	binary.BigEndian.PutUint32(random, uint32(len(random)))
	cut := bytes.Clone(iccprofile.FOGRA39[:len(iccprofile.FOGRA39)*2/3])
	binary.BigEndian.PutUint32(cut, uint32(len(cut)))

	real := map[string][]byte{"FOGRA39": iccprofile.FOGRA39}
	for _, f := range []string{"/usr/share/color/icc/ghostscript/default_cmyk.icc", "/usr/share/color/icc/ghostscript/ps_cmyk.icc"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("%v (Debian package libgs-common)", err)
		}
		real[filepath.Base(f)] = data
	}

	platentest.EachBackend(t, func(t *testing.T, b platentest.Backend) {
		srv := platentest.Start(t, b)
		acme := srv.Bootstrap(t, "acme", "acme-shop")
		member := srv.TeamOperator(t, "ada@example.com", acme.TeamID)
		for name, tc := range map[string]struct {
			data []byte
			want string
		}{
			"random bytes behind a valid header": {random, `data: must be a CMYK output ("prtr" class) ICC profile: the ICC profile's tag table lists `},
			"cut short, its size field matching": {cut, `data: must be a CMYK output ("prtr" class) ICC profile: the ICC profile's "`},
		} {
			r := srv.Do(t, "POST", "/api/v1/operator/output-profiles", member.Token, upload(nil, "BROKEN", tc.data))
			msg, fields := platentest.ErrorBody(t, r, http.StatusBadRequest)
			if !slices.Equal(fields, []string{"data"}) || !strings.HasPrefix(msg, tc.want) {
				t.Errorf("%s: %q %v; want %q", name, msg, fields, tc.want)
			}
		}
		i := 0
		for name, data := range real {
			i++
			r := srv.Do(t, "POST", "/api/v1/operator/output-profiles", member.Token, upload(nil, fmt.Sprint("REAL-", i), data))
			if r.Status != http.StatusOK {
				t.Errorf("%s: %d %s", name, r.Status, r.Raw)
			}
		}
	})
}
