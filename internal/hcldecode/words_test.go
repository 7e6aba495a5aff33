package hcldecode

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQuoteTruncates(t *testing.T) {
	t.Parallel()
	require.Equal(t, `"email:send"`, Quote("email:send"))
	long := strings.Repeat("é", 1000)
	q := Quote(long)
	require.Equal(t, `"`+strings.Repeat("é", maxQuoted)+`…"`, q)
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	require.Equal(t, "default", Suggest("defualt", []string{"default", "media"}))
	require.Equal(t, "default", Suggest("DEFAULT", []string{"default"}))
	require.Equal(t, "batch_size", Suggest("batchsize", []string{"batch_size", "max_retries"}))
	require.Equal(t, "", Suggest("reports", []string{"default", "media"}))
	require.Equal(t, "", Suggest("x", nil))
}
