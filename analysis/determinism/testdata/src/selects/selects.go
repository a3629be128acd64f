package selects

func bad(a, b chan int) int {
	select { // want `select with 2 cases: when several are ready Go picks one at random`
	case v := <-a:
		return v
	case v := <-b:
		return v
	}
}

func good(a chan int) int {
	select {
	case v := <-a:
		return v
	}
}

func goodDefault(a chan int) int {
	select {
	case v := <-a:
		return v
	default:
		return 0
	}
}

func badDefault(a, b chan int) int {
	select { // want `select with 2 cases`
	case v := <-a:
		return v
	case b <- 1:
		return 0
	default:
		return -1
	}
}
