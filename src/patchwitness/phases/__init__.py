"""The phases of one grade, in the order the scheduler (collect.py) runs them.

    prepare     the task's environment, its suite and the run's fingerprint    prepare.py
    baseline    the tests at the SHA (and the hidden tests), once per task       baseline.py
    checkout    a fresh checkout of the SHA, or a warm build tree restored       checkout.py
    apply       git applies the patch; the census and the classes of its files  apply.py
    run         the suite over the patched tree; what its reports say            run.py
    hidden      the hidden tests over the patched tree                           hidden.py
    coverage    the run's line hits on the patch's production hunks              coverage.py
    pristine    the SHA's own tests over the patched code                        pristine.py
    matrix      the compiler flag matrix                                         matrix.py

Each phase reads a frozen GradeContext (context.py) and what earlier phases returned, and
returns its own facts; none asks the judge. Whether a later, expensive phase can still change
the verdict is the scheduler's question alone.
"""
