//! Cutting a module's arena back: [`Module::mark`] notes how many entries
//! each of its vectors holds, [`Module::truncate_to`] drops every entry made
//! after that. A streaming redshift builds each function's residual code,
//! prints it, and cuts the residual arena back to where the function began,
//! so the residual tree is never larger than one function's (issue 14 item
//! 5). The ids of dropped nodes are then free for new nodes: whoever keeps
//! one across a cut must be able to tell (residual values carry their
//! window, `vm::value::ResidualExpr`).

use std::hash::BuildHasher;

use super::Module;

/// The length of each of a module's vectors at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaMark {
    lens: [usize; 23],
}

impl Module {
    /// Where the arena is now.
    pub fn mark(&self) -> ArenaMark {
        ArenaMark {
            lens: [
                self.exprs.len(),
                self.far_exprs.len(),
                self.expr_ranges.len(),
                self.stmts.len(),
                self.far_stmts.len(),
                self.stmt_ranges.len(),
                self.long_ranges.len(),
                self.idents.len(),
                self.funcs.len(),
                self.func_extras.len(),
                self.classes.len(),
                self.params.len(),
                self.import_names.len(),
                self.expr_items.len(),
                self.ident_items.len(),
                self.stmt_items.len(),
                self.blocks.len(),
                self.strs.len(),
                self.bytes.len(),
                self.if_exps.len(),
                self.slices.len(),
                self.generator_exps.len(),
                self.names.len(),
            ],
        }
    }

    /// Drop every node, list entry and name added since `mark` (the room
    /// they took stays, for the nodes made next). The module's `body` must
    /// not name any of them, and no node from before the mark may have
    /// been changed since (`set_expr_node`, `set_expr_range`...): a changed
    /// node can have moved to a far table or a long range made after the
    /// mark.
    pub fn truncate_to(&mut self, mark: &ArenaMark) {
        let [exprs, far_exprs, expr_ranges, stmts, far_stmts, stmt_ranges, long_ranges, idents, funcs, func_extras, classes, params, import_names, expr_items, ident_items, stmt_items, blocks, strs, bytes, if_exps, slices, generator_exps, names] =
            mark.lens;
        self.exprs.truncate(exprs);
        self.far_exprs.truncate(far_exprs);
        self.expr_ranges.truncate(expr_ranges);
        self.stmts.truncate(stmts);
        self.far_stmts.truncate(far_stmts);
        self.stmt_ranges.truncate(stmt_ranges);
        self.long_ranges.truncate(long_ranges);
        self.idents.truncate(idents);
        self.funcs.truncate(funcs);
        self.func_extras.truncate(func_extras);
        self.classes.truncate(classes);
        self.params.truncate(params);
        self.import_names.truncate(import_names);
        self.expr_items.truncate(expr_items);
        self.ident_items.truncate(ident_items);
        self.stmt_items.truncate(stmt_items);
        self.blocks.truncate(blocks);
        self.strs.truncate(strs);
        self.bytes.truncate(bytes);
        self.if_exps.truncate(if_exps);
        self.slices.truncate(slices);
        self.generator_exps.truncate(generator_exps);
        // The names added since the mark leave the index first (found by
        // their hash: the cost is theirs, not the table's).
        for k in (names..self.names.len()).rev() {
            let hash = self.name_hasher.hash_one(self.names[k].as_str());
            if let Ok(entry) = self.name_index.find_entry(hash, |s| s.index() == k) {
                entry.remove();
            }
        }
        self.names.truncate(names);
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::source::TextRange;

    /// A cut gives back exactly the module as it was at the mark: the same
    /// next ids, and names interned after it interned anew.
    #[test]
    fn truncate_to_restores_the_marked_module() {
        let mut m = Module::new();
        let r = TextRange::new(0, 1);
        let a = m.intern("a");
        m.add_expr(
            ExprNode::Name {
                sym: a,
                id: NameId(0),
            },
            r,
        );
        let mark = m.mark();
        let b = m.intern("b");
        let e = m.add_expr(
            ExprNode::Name {
                sym: b,
                id: NameId(0),
            },
            r,
        );
        let s = m.add_stmt(StmtNode::Expr(e), TextRange::new(0, 70_000));
        m.add_block([s]);
        assert_ne!(m.mark(), mark);
        m.truncate_to(&mark);
        assert_eq!(m.mark(), mark);
        assert_eq!(m.intern("a"), a);
        let c = m.intern("c");
        assert_eq!(c, b, "the dropped name's entry is free again");
        assert_eq!(m.name(c).as_str(), "c");
        assert_eq!(m.intern("b").index(), c.index() + 1);
        assert_eq!(
            m.add_expr(
                ExprNode::Name {
                    sym: c,
                    id: NameId(0)
                },
                r
            ),
            e
        );
    }
}
