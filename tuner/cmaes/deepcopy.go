package cmaes

import (
	"fmt"
	"reflect"
	"unsafe"
)

// deepCopy returns a copy of the value v points to that shares no memory with it: every
// pointer, slice, array, map and interface it reaches copied, unexported fields included,
// and memory v reaches twice (two pointers to one struct, two slices of one array, an
// interface holding a pointer another field holds) reached twice in the copy too. It
// copies a goptuna CMA-ES optimiser (cmaes.Optimizer: gonum matrices and a math/rand
// generator, every field unexported), whose state no method of its package copies or
// exports; a test (TestCMAESFork) checks that the copy asks what the original asks
// and that telling the copy leaves the original as it was. It fails on functions,
// channels and unsafe pointers, which it cannot copy.
func deepCopy[T any](v *T) (*T, error) {
	c := &copier{ptrs: map[uintptr]reflect.Value{}, arrays: map[[3]uintptr]reflect.Value{}}
	out, err := c.copy(reflect.ValueOf(v))
	if err != nil {
		return nil, err
	}
	return out.Interface().(*T), nil
}

type copier struct {
	ptrs   map[uintptr]reflect.Value    // copied pointers by address
	arrays map[[3]uintptr]reflect.Value // copied slices by their array, length and capacity
}

// settable is v, addressable, made settable even when reached through unexported fields.
func settable(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func (c *copier) copy(v reflect.Value) (reflect.Value, error) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return reflect.Zero(v.Type()), nil
		}
		if p, ok := c.ptrs[v.Pointer()]; ok {
			return p, nil
		}
		p := reflect.New(v.Type().Elem())
		c.ptrs[v.Pointer()] = p
		if err := c.into(settable(p.Elem()), v.Elem()); err != nil {
			return reflect.Value{}, err
		}
		return p, nil
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(v.Type()), nil
		}
		key := [3]uintptr{v.Pointer(), uintptr(v.Len()), uintptr(v.Cap())}
		if s, ok := c.arrays[key]; ok {
			return s, nil
		}
		s := reflect.MakeSlice(v.Type(), v.Len(), v.Cap())
		c.arrays[key] = s
		for i := range v.Len() {
			if err := c.into(s.Index(i), v.Index(i)); err != nil {
				return reflect.Value{}, err
			}
		}
		return s, nil
	case reflect.Map:
		if v.IsNil() {
			return reflect.Zero(v.Type()), nil
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k, err := c.copy(it.Key())
			if err != nil {
				return reflect.Value{}, err
			}
			e, err := c.copy(it.Value())
			if err != nil {
				return reflect.Value{}, err
			}
			m.SetMapIndex(k, e)
		}
		return m, nil
	case reflect.Interface:
		if v.IsNil() {
			return reflect.Zero(v.Type()), nil
		}
		e, err := c.copy(v.Elem())
		if err != nil {
			return reflect.Value{}, err
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(e)
		return out, nil
	case reflect.Struct, reflect.Array:
		out := reflect.New(v.Type()).Elem()
		if err := c.into(out, v); err != nil {
			return reflect.Value{}, err
		}
		return out, nil
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if v.IsNil() {
			return reflect.Zero(v.Type()), nil
		}
		return reflect.Value{}, fmt.Errorf("deep copy: cannot copy a %s", v.Type())
	}
	out := reflect.New(v.Type()).Elem()
	out.Set(reflect.ValueOf(valueOf(v)).Convert(v.Type()))
	return out, nil
}

// valueOf is the basic value v holds (a bool, number or string), read even through
// unexported fields.
func valueOf(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint()
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Complex64, reflect.Complex128:
		return v.Complex()
	case reflect.String:
		return v.String()
	}
	panic("deep copy: " + v.Kind().String()) // every other kind is handled by copy
}

// into copies v into dst (settable, of v's type): a struct field by field, an array
// element by element, anything else by copy.
func (c *copier) into(dst, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if err := c.into(settable(dst.Field(i)), v.Field(i)); err != nil {
				return fmt.Errorf("%s.%s: %w", v.Type(), v.Type().Field(i).Name, err)
			}
		}
		return nil
	case reflect.Array:
		for i := range v.Len() {
			if err := c.into(settable(dst.Index(i)), v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	out, err := c.copy(v)
	if err != nil {
		return err
	}
	dst.Set(out)
	return nil
}
