// fake
