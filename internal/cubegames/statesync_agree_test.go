package cubegames

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/statesync"
)

// TestAgreementText: the summary's words for an agreement, converged or
// not, seconds from the host's steps.
func TestAgreementText(t *testing.T) {
	step := time.Second / 60
	for _, c := range []struct {
		a    statesync.Agreement
		want string
	}{
		{statesync.Agreement{Reports: 40, Agreed: 31, Agrees: true, Since: 1260, Rested: 30, Last: 2430},
			"bit for bit since host tick 1260, 0.5 s after the host's world came to rest (31 of 40 digests matched)"},
		{statesync.Agreement{Reports: 40, Agreed: 31, Since: 1260, Rested: 30, Last: 2430},
			"not converged: the newest digest (host tick 2430) differs (31 of 40 digests matched)"},
	} {
		if got := agreementText(c.a, step); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.a, got, c.want)
		}
	}
}
