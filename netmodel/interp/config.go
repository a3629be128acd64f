package interp

import "errors"

// ErrConfig reports a configuration that cannot work.
var ErrConfig = errors.New("interp: invalid configuration")
