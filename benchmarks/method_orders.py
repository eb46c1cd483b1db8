"""Every method on a heavy top and a triple pendulum: error at h = 1 ms and the measured order
(see impulsim.bench.orders)."""
from impulsim.bench.orders import main

if __name__ == "__main__":
    main()
