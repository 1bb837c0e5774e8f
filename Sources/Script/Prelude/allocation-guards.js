// The allocation guards (Sources/Script/AllocationGuards.swift says why): a function of the heap limit in
// bytes, which the runtime calls once, after the prelude and before jsLib. Embedded in the binary at build time.
(function (limit) {
    'use strict';
    const mib = Math.floor(limit / 1048576);
    function refuse(name, bytes) {
        const error = new RangeError(name + ' would make about ' + Math.ceil(bytes / 1048576)
            + ' MiB at once, more than the script\'s ' + mib + ' MiB heap limit');
        // The line is this file's, not the snippet's: leave it out of the message.
        delete error.line;
        delete error.column;
        throw error;
    }
    function integer(value, fallback) {
        const number = Math.trunc(Number(value));
        return Number.isFinite(number) ? number : fallback;
    }
    function wrap(owner, name, size) {
        const original = owner[name];
        if (typeof original !== 'function') return;
        const guarded = {
            [name](...args) {
                const bytes = size(this, args);
                if (bytes > limit) refuse(name, bytes);
                return original.apply(this, args);
            }
        }[name];
        Object.defineProperty(owner, name, { value: guarded, writable: true, configurable: true, enumerable: false });
    }
    const stringLength = (value) => (value === null || value === undefined) ? 0 : String(value).length;
    wrap(String.prototype, 'repeat', (self, args) => stringLength(self) * Math.max(0, integer(args[0], 0)));
    wrap(String.prototype, 'padStart', (self, args) => integer(args[0], 0));
    wrap(String.prototype, 'padEnd', (self, args) => integer(args[0], 0));
    function span(self, args, first) {
        const length = Math.max(0, integer(self && self.length, 0));
        const clamp = (value, fallback) => {
            const index = integer(value, fallback);
            return index < 0 ? Math.max(length + index, 0) : Math.min(index, length);
        };
        const start = clamp(args[first], 0);
        const end = args[first + 1] === undefined ? length : clamp(args[first + 1], length);
        return Math.max(0, end - start);
    }
    wrap(Array.prototype, 'fill', (self, args) => span(self, args, 1) * 8);
    wrap(Array.prototype, 'join', (self, args) => {
        const length = Math.max(0, integer(self && self.length, 0));
        const separator = args[0] === undefined ? 1 : stringLength(args[0]);
        return Math.max(0, length - 1) * separator;
    });
})
