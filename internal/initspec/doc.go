// Package initspec owns `behaves init`: from the files git tracks in a
// repository (read from the index by internal/gitindex, never by running
// git) it finds the languages used and the likely programs, and writes the
// text of a starting behaves.yml: a profile per language (or per way of
// running, such as python3 -m <package>), one program entry per likely
// program, and one placeholder case each.
//
// What counts as a likely program:
//   - Python: a script with `if __name__ == "__main__":` outside any
//     package (as file:, or as dir: with entry: when it imports a module
//     beside it), and a folder with __main__.py (dir: its parent, run as
//     python3 -m <folder>);
//   - Go: a main package inside a module (dir: the module's folder, built
//     offline as examples/go-module is), or a lone main file outside one
//     (file:, built as examples/go-build is);
//   - C: a .c file that defines main (file:, built with gcc);
//   - shell: a file whose first line is a sh, dash or bash shebang;
//   - Node: a package.json's bin entries and scripts with a node shebang
//     or `require.main === module`.
//
// Tests, vendored and generated folders (vendor, node_modules, testdata,
// hidden folders) are passed over. The images are tags unless the caller
// gives pinned ones or a resolver that pins them; an image left as a tag
// carries a TODO comment naming the behaves pin command, and is the only
// thing behaves validate then refuses.
//
// The repository is the user's own, but its file names are still only
// data: a name with a control character is passed over, every path and
// name is written as a double-quoted YAML string, and none reaches a
// comment.
package initspec
