//! The ids of a module's parameters, which key an optimiser's saved state: a
//! network rebuilt from host weights gets fresh ids, so a checkpoint keeps them and
//! gives them back before the optimiser state is loaded.

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param, ParamId};
use burn::tensor::Tensor;

struct Collect(Vec<u64>);

impl ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.0.push(param.id.val());
    }
}

struct Assign<'a> {
    ids: std::slice::Iter<'a, u64>,
    missing: bool,
}

impl ModuleMapper for Assign<'_> {
    fn map_float<const D: usize>(&mut self, mut param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        match self.ids.next() {
            Some(&id) => param.id = ParamId::from(id),
            None => self.missing = true,
        }
        param
    }
}

/// The ids of `module`'s float parameters, in visiting order.
pub fn param_ids<M: Module>(module: &M) -> Vec<u64> {
    let mut collect = Collect(Vec::new());
    module.visit(&mut collect);
    collect.0
}

/// `module` with its float parameters carrying `ids` (from [`param_ids`] of a
/// module of the same shape).
pub fn with_param_ids<M: Module>(module: M, ids: &[u64]) -> Result<M, String> {
    let expected = param_ids(&module).len();
    if ids.len() != expected {
        return Err(format!(
            "{} parameter ids for {expected} parameters",
            ids.len()
        ));
    }
    let mut assign = Assign {
        ids: ids.iter(),
        missing: false,
    };
    let module = module.map(&mut assign);
    debug_assert!(!assign.missing);
    Ok(module)
}
