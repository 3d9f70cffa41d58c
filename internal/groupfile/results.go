package groupfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// ReadResults reads result lines, as [WriteResult] writes them or as
// another tool (Kafka's Java client, say) produces them in the same
// contract. Unlike group files, results may carry fields beyond "name",
// "strategy", "assignment", "error" and the cooperative "target",
// "revoked" and "pending": the contract lets them grow, so unknown fields
// are ignored. Member order is kept in Members; partition lists are
// sorted. Errors are [*Error]s giving the line of the bad result.
func ReadResults(r io.Reader) ([]Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("groupfile: %w", err)
	}
	d := newDecoder(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []Result
	for {
		start := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return out, nil
		} else if err != nil {
			off := start
			if se, ok := err.(*json.SyntaxError); ok {
				off = int(se.Offset)
			}
			return out, d.errAt(off, "", fmt.Errorf("%w: %v", ErrSyntax, err))
		}
		// Where the value starts, after white space, for error positions.
		for start < len(data) && (data[start] == ' ' || data[start] == '\n' || data[start] == '\r' || data[start] == '\t') {
			start++
		}
		res, err := decodeResult(raw)
		if err != nil {
			return out, d.errAt(start, "", err)
		}
		out = append(out, res)
	}
}

func decodeResult(raw json.RawMessage) (Result, error) {
	var v struct {
		Name       *string
		Strategy   *string
		Assignment json.RawMessage
		Target     json.RawMessage
		Revoked    json.RawMessage
		Pending    json.RawMessage
		Error      *string
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrType, err)
	}
	var r Result
	if v.Strategy == nil {
		return r, fmt.Errorf("%w %q", ErrMissingField, "strategy")
	}
	r.Strategy = *v.Strategy
	if v.Name != nil {
		r.Name = *v.Name
	}
	if v.Error != nil {
		r.Err = resultError(*v.Error)
		return r, nil
	}
	if v.Assignment == nil {
		return r, fmt.Errorf("%w %q (or \"error\")", ErrMissingField, "assignment")
	}
	var err error
	if r.Members, r.Assignment, err = decodeAssignment(v.Assignment, "assignment"); err != nil {
		return r, err
	}
	if v.Target != nil {
		c := &Cooperative{}
		if _, c.Target, err = decodeAssignment(v.Target, "target"); err != nil {
			return r, err
		}
		if v.Revoked != nil {
			if _, c.Revoked, err = decodeAssignment(v.Revoked, "revoked"); err != nil {
				return r, err
			}
		}
		if v.Pending != nil {
			if _, c.Pending, err = decodeAssignment(v.Pending, "pending"); err != nil {
				return r, err
			}
		}
		r.Cooperative = c
	}
	return r, nil
}

// resultError is the "error" of a result line read back.
type resultError string

func (e resultError) Error() string { return string(e) }

// decodeAssignment reads {"member": {"topic": [p, ...]}} keeping the
// order of the members.
func decodeAssignment(raw json.RawMessage, field string) ([]string, assign.Assignment, error) {
	var byMember map[string]map[string][]int32
	if err := json.Unmarshal(raw, &byMember); err != nil {
		return nil, nil, fmt.Errorf("%s: %w: %v", field, ErrType, err)
	}
	members, err := objectKeys(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", field, err)
	}
	a := make(assign.Assignment, len(byMember))
	for _, id := range members {
		var tps []assign.TopicPartition
		for topic, ps := range byMember[id] {
			for _, p := range ps {
				tps = append(tps, assign.TopicPartition{Topic: topic, Partition: p})
			}
		}
		slices.SortFunc(tps, assign.TopicPartition.Compare)
		a[id] = tps
	}
	return members, a, nil
}

// objectKeys returns the keys of a JSON object in order; repeated keys are
// refused, since the object would not say which value counts.
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var keys []string
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // object keys are strings
		if seen[key] {
			return nil, fmt.Errorf("%w %q", ErrDuplicateKey, key)
		}
		seen[key] = true
		keys = append(keys, key)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
