"""The corpus of mutants: realistic bugs planted in the solutions, one module per notebook.

Each module defines MUTANTS, a list of tests.grading.Mutant. tests/test_mutants.py grades every
mutant and asserts it loses its task's points and keeps all others.

The corpus is also what the catalogue of known mistakes (issue 19: the misconceptions that the
feedback names, registered beside the references in autograder/references/<notebook>.py) is
measured on. HELD_OUT is the part of it that the catalogue is not written from: every 4th
mutant of each notebook, in list order (the 4th, 8th, ...), chosen before any diagnosis was
written. Its coverage is measured and reported (tests/misconception_coverage.py), not asserted.
Each module says, of its other mutants, which known mistake the feedback names (NAMED: mutant
name -> the mistake's id in the catalogue), or why none can be named (UNNAMEABLE: name ->
reason: the bug is no wrong value, e.g. a plot's labels, an exception, a side effect).
"""
import importlib
import pkgutil

HELD_OUT = frozenset({
    "01_scalar_autodiff:neg_gradient_sign", "01_scalar_autodiff:exp_derivative_input",
    "01_scalar_autodiff:no_visited_set",
    "02_matrix_autodiff:broadcast_gradient_not_reduced", "02_matrix_autodiff:sum_drops_the_axis",
    "03_dp_library:upstream_ignored", "03_dp_library:bias_named_like_the_weights",
    "04_activation_functions:whole_training_set",
    "04_activation_functions:plotted_nets_trained_afterwards",
    "05_weight_initialisation:xavier_normal_drawn_uniform",
    "05_weight_initialisation:std_over_the_wrong_axis",
    "06_optimizers:momentum_mutates_theta", "06_optimizers:rmsprop_eps_inside_sqrt",
    "06_optimizers:adam_global_step_counter", "06_optimizers:labels_swapped",
    "07_dropout:global_random_state", "07_dropout:graph_cut",
    "08_batch_normalisation:no_mean_of_gradient", "08_batch_normalisation:unbiased_running_variance",
    "10_optimisation_beyond_ml:dx_one_over_the_number_of_points",
    "10_optimisation_beyond_ml:central_second_derivative_misprinted",
    "10_optimisation_beyond_ml:gauss_newton_step_with_the_wrong_sign",
    "11_convolution:input_gradient_valid", "11_convolution:gradient_to_minimum",
    "11_convolution:descends", "11_convolution:giant_step",
    "12_recurrent_networks:W_h_gradient_overwritten",
    "12_recurrent_networks:initial_state_wraps_around",
    "12_recurrent_networks:learning_rate_too_small",
    "13_recurrent_loops:loop_order_keeps_the_delay_edges",
    "13_recurrent_loops:delay_always_one_step",
    "13_recurrent_loops:parameter_gradient_overwritten",
    "13_recurrent_loops:forget_bias_zero",
    "14_convolutional_networks:padding_not_dropped",
    "14_convolutional_networks:gradient_to_every_element",
    "14_convolutional_networks:forward_skips_the_first_layer",
})


def _modules() -> list:
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)]


def all_mutants() -> list:
    return [mutant for module in _modules() for mutant in module.MUTANTS]


def naming() -> tuple:
    """({repr of a mutant: the id of the known mistake its feedback names}, {repr of a mutant:
    why none can be named}) over the corpus."""
    named, unnameable = {}, {}
    for module in _modules():
        assignment = module.MUTANTS[0].assignment
        named.update({f"{assignment}:{name}": mistake
                      for name, mistake in getattr(module, "NAMED", {}).items()})
        unnameable.update({f"{assignment}:{name}": reason
                           for name, reason in getattr(module, "UNNAMEABLE", {}).items()})
    return named, unnameable


def held_out(mutant) -> bool:
    """Whether `mutant` is in the held-out part of the corpus (HELD_OUT)."""
    return repr(mutant) in HELD_OUT
