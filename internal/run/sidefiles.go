package run

import (
	"fmt"

	"github.com/behaves-dev/behaves/internal/htmlreport"
	"github.com/behaves-dev/behaves/internal/junit"
	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reportread"
)

// writeJUnit writes r as JUnit XML to path ("" writes nothing).
func writeJUnit(path string, r report.Report) error {
	if path == "" {
		return nil
	}
	return junit.WriteFile(path, r, junit.Options{})
}

// writeSideFiles writes r as JUnit XML to junitPath and as the HTML page
// (behaves html's) to htmlPath; "" writes nothing.
func writeSideFiles(junitPath, htmlPath string, r report.Report) error {
	if err := writeJUnit(junitPath, r); err != nil {
		return err
	}
	if htmlPath == "" {
		return nil
	}
	return htmlreport.WriteFile(htmlPath, r)
}

// sideFilesFromReport reads the report at reportPath (at most limit bytes,
// checked, as behaves junit and behaves html read it) and writes it as
// JUnit XML to junitPath and as the HTML page to htmlPath ("" for none).
func sideFilesFromReport(junitPath, htmlPath, reportPath string, limit int64) error {
	if junitPath == "" && htmlPath == "" {
		return nil
	}
	r, err := reportread.File(reportPath, limit)
	if err != nil {
		what := "JUnit " + junitPath
		if junitPath == "" {
			what = "the HTML report " + htmlPath
		}
		return fmt.Errorf("writing %s: %w", what, err)
	}
	return writeSideFiles(junitPath, htmlPath, r)
}
