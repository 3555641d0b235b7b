package report

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/misslab/misslab/internal/stats"
)

// Task says what the two scores of a report's records are.
type Task int

const (
	// Regression records carry the test R² (Record.R2) and the test MSE
	// (Record.MSE). It is the zero value.
	Regression Task = iota
	// Classification records carry the test AUC in Record.R2 (for more
	// than two classes, each class against the rest, averaged) and the
	// test log-loss in Record.MSE. The report shows both, tests both,
	// ranks by AUC and draws its learning curves in log-loss.
	Classification
)

// score names what the R2 field of a view's records holds.
type score struct {
	id    string // in figure names and CSV metric columns: "r2", "auc", "log_loss"
	name  string // in running text: "test R²"
	short string // in table heads: "R²"
	// definition opens the box plots' captions.
	definition string
	// lower says that lower is better (a loss): such a score is not
	// ranked, and its relative version is not drawn.
	lower bool
}

var (
	scoreR2 = score{id: "r2", name: "test R²", short: "R²",
		definition: "Test R² = 1 − MSE/Var(Y) with the true Var(Y). "}
	scoreAUC = score{id: "auc", name: "test AUC", short: "AUC",
		definition: "Test AUC: the area under the ROC curve of the predicted class probabilities (two classes: the Mann–Whitney statistic, ties counted ½; more: each class against the rest, averaged over the classes); 0.5 is chance, 1 a perfect ranking. "}
	scoreLogLoss = score{id: "log_loss", name: "test log-loss", short: "log-loss", lower: true,
		definition: "Test log-loss: the mean over the test rows of −log p̂(y | x), probabilities clipped to [1e−15, 1 − 1e−15]; lower is better, and a constant prediction of the class shares scores the classes' entropy. "}
)

// Title is the name with its first letter upper-cased: "Test R²".
func (s score) Title() string {
	r, n := utf8.DecodeRuneInString(s.name)
	return string(unicode.ToUpper(r)) + s.name[n:]
}

// names are the CSV names of a task's two scores.
func (t Task) names() stats.ScoreNames {
	if t == Classification {
		return stats.ScoreNames{Score: scoreAUC.id, Loss: scoreLogLoss.id}
	}
	return stats.RegressionNames
}

// lossView returns the view of p whose records hold the log-loss in
// their R2 field (and the AUC in MSE), for a classification report's
// log-loss figures, tests and learning curves; nil for regression.
func (p *prepared) lossView() *prepared {
	if p.Task != Classification {
		return nil
	}
	v := *p
	v.score = scoreLogLoss
	v.Records = make([]stats.Record, len(p.Records))
	for i, r := range p.Records {
		r.R2, r.MSE = r.MSE, r.R2
		v.Records[i] = r
	}
	return &v
}

// slug is the score's id as figure names spell it: "log-loss".
func (s score) slug() string { return strings.ReplaceAll(s.id, "_", "-") }
