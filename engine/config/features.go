package config

import "fmt"

// EligibleLeaderReplicasVersion is the feature that turns KIP-966's ELR on (level 1) or off (0).
// New clusters get level 1 from Kafka 4.1 on, so that is the default here.
const EligibleLeaderReplicasVersion = "eligible.leader.replicas.version"

// FeatureDef is a finalized feature that kafka-features.sh can set, with its valid levels.
type FeatureDef struct {
	Name     string
	Default  int16
	MaxLevel int16
	Doc      string
}

var features = []FeatureDef{
	{Name: EligibleLeaderReplicasVersion, Default: 1, MaxLevel: 1,
		Doc: "1 enables Eligible Leader Replicas (KIP-966): replicas that leave the ISR below min.insync.replicas stay electable."},
}

// Features returns the feature definitions.
func Features() []FeatureDef { return append([]FeatureDef(nil), features...) }

// CheckFeature validates a feature level the way UpdateFeatures would.
func CheckFeature(name string, raw any) (int16, error) {
	for _, f := range features {
		if f.Name != name {
			continue
		}
		n, ok := integer(raw)
		if !ok || n < 0 || n > int64(f.MaxLevel) {
			return 0, &ConfigError{Name: name, Value: display(raw),
				Reason: fmt.Sprintf("Feature level must be an integer from 0 to %d", f.MaxLevel)}
		}
		return int16(n), nil
	}
	return 0, &ConfigError{Name: name, Reason: fmt.Sprintf("Unknown feature %q (known: %s)", name, EligibleLeaderReplicasVersion)}
}
