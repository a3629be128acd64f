module example.com/vetgame

go 1.26
