package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLinkChecksGeometry holds the canvas layout checks' own geometry to what they claim, with
// no browser: a link is walked between its ends, never at them, and a point counts only inside
// a box or a text, not on its edge.
func TestLinkChecksGeometry(t *testing.T) {
	// Broker 1's box at x 100–200, broker 2's at 300–400, both y 100–150.
	boxes := []actorBox{{Kind: "broker", ID: 1, X: 100, Y: 100, W: 100, H: 50}, {Kind: "broker", ID: 2, X: 300, Y: 100, W: 100, H: 50}}
	between := linkDrawn{API: "Fetch", From: 1, To: 2, Pts: [][2]float64{{200, 125}, {300, 125}}}
	assert.Empty(t, linksOverBoxes([]linkDrawn{between}, boxes), "a link from one box's edge to the other's")
	through := linkDrawn{API: "Fetch", From: 1, To: 2, Pts: [][2]float64{{50, 125}, {250, 125}, {300, 125}}}
	assert.Equal(t, []string{"a Fetch link 1→2 crosses broker 1's box at (102, 125)"}, linksOverBoxes([]linkDrawn{through}, boxes))

	ink := []shape{{Kind: "text", Text: "leads 0", X: 240, Y: 120, W: 20, H: 10}, {Kind: "text", Text: "above", X: 240, Y: 20, W: 20, H: 10}}
	assert.Equal(t, []string{`a Fetch link 1→2 over text "leads 0" at (242, 125)`}, linksOverInk([]linkDrawn{between}, ink, 100), "a text in the rows")
	over := linkDrawn{API: "Fetch", From: 1, To: 2, Pts: [][2]float64{{200, 25}, {300, 25}}}
	assert.Empty(t, linksOverInk([]linkDrawn{over}, ink, 100), "a text above the rows")
}
