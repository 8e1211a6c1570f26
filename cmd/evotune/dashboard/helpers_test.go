package dashboard

import (
	"io"
	"net/http"
	"slices"
	"time"
)

func readAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func slicesSort(d []time.Duration) { slices.Sort(d) }
