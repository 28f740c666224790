// EXIT: 7
#include "guest.h"
int main(void) { return 7; }
